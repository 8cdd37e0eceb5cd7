// JS versions of the Python modules used by gen_fixtures.py (not a test file).
import { hg, S, leaf } from './helpers.mjs';

export const mul2 = () => new hg.Module('Mul2', (a, b) => a.mul(b));
export const mul3 = () => new hg.Module('Mul3', (a, b, c) => a.mul(b).mul(c));
export const double = () => new hg.Module('Double', (x) => x.mul(2));

/** a * b * w with a parameter w = 5 (Python: Mul2W). */
export function mul2w() {
  const m = new hg.Module('Mul2W', (a, b) => a.mul(b).mul(m.getParameter('w')));
  m.registerParameter('w', hg.tensor(5, { requiresGrad: true }));
  return m;
}

/** Overwrite a parameter's values in place, the way PyTorch's `with no_grad: p.copy_(...)` does. */
export function setParam(p, data) {
  hg.noGrad(() => { p.zero_().add_(hg.tensor(data)); });
}

/** nn.Linear(3, 2) with the fixed weight/bias of the module_legacy_Linear scenario. */
export function fixedLinear(bias = true) {
  const s = S('module_legacy_Linear');
  const lin = new hg.nn.Linear(3, 2, { bias });
  setParam(lin.getParameter('weight'), s.weight);
  if (bias) setParam(lin.getParameter('bias'), s.bias);
  return lin;
}

export { leaf };
