// graph()/trace() data for the pure modules' tests, produced by running real
// programs through the built engine (web/pkg) the way the playground does
// (web/src/model/run-program.js), so the tests see exactly what the engine
// emits. The tests' expected values are hand calculations on these programs
// (written next to each program), never read back from this output.
import { runProgram } from '../../web/src/model/run-program.js';
import { loadPackage } from '../load-package.mjs';

export const { hg } = await loadPackage();

function run(program, semantics = 'pytorch-2') {
  const r = runProgram(hg, program, { semantics });
  return r;
}

/** The 2021 hooks video, under PyTorch 1.x order (retain_grad where it was called).
 *  By hand: c = a·b = 6, e = c·d = 24. de/de = 1 → e.grad = 1 (retained before
 *  `double`), then 2 flows on; d.grad = c·2 = 12 → addHundred → 112; c gets
 *  d·2 = 8 → cHook → 10 → c.grad = 10; a.grad = b·10 = 30, b.grad = a·10 = 20. */
export const VIDEO = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';
c.registerHook(function cHook(grad) { console.log('cHook got', grad); return grad.add(2); });
c.registerHook(function printGrad(grad) { console.log('printGrad got', grad); });
c.retainGrad();
const d = hg.tensor(4, { requiresGrad: true, name: 'd' });
d.registerHook(function addHundred(grad) { return grad.add(100); });
const e = c.mul(d); e.name = 'e';
e.retainGrad();
e.registerHook(function double(grad) { return grad.mul(2); });
console.log('before backward');
e.backward();
console.log('a.grad', a.grad);`;
export const video = run(VIDEO, 'pytorch-1');

/** A module computing x·y·x with a legacy backward hook (PyTorch warns at
 *  forward time: several nodes), and a node hook on the inner mul that throws.
 *  By hand (x = 2, y = 3): the legacy hook sees the outer mul's grad_inputs
 *  (d/d(xy), d/dx) = (x, xy) = (2, 6); the inner MulBackward0's hook then throws. */
export const MODULE = `const mul3 = new hg.Module('Mul3', (x, y) => x.mul(y).mul(x));
mul3.registerBackwardHook(function legacyHook(module, gradInput, gradOutput) { console.log('legacy', gradInput); });
const x = hg.tensor(2, { requiresGrad: true, name: 'x' });
const y = hg.tensor(3, { requiresGrad: true, name: 'y' });
const out = mul3.call(x, y); out.name = 'out';
out.gradFn.nextFunctions[0][0].registerHook(function boom() { throw new Error('boom'); });
out.backward();`;
export const module = run(MODULE);

/** A module with a full backward hook: x·y·z with x, y, z = 2, 3, 4.
 *  By hand: grad_input = (yz, xz, xy) = (12, 8, 6), grad_output = (1,). */
export const FULL = `const m = new hg.Module('Mul3', (x, y, z) => x.mul(y).mul(z));
m.registerFullBackwardHook(function fullHook(module, gradInput, gradOutput) { console.log('full', gradInput); });
const [x, y, z] = [2, 3, 4].map((v, i) => hg.tensor(v, { requiresGrad: true, name: 'xyz'[i] }));
const out = m.call(x, y, z); out.name = 'out';
out.backward();`;
export const full = run(FULL);

/** Tensor id by name in a run's graph. */
export const tid = (r, name) => r.graph.tensors.find((t) => t.name === name)?.id;

/** A training loop: three steps of w ← w − 0.1·dL/dw for L = (w·x − 1)² inside
 *  a module Lin, each step in hg.tidy (its tensors and nodes are released),
 *  then one last forward and backward outside tidy. By hand, x = 2, w = 1:
 *  w·x − 1 = 1 → dL/dw = 2·1·2 = 4, w = 0.6; then w·x − 1 = 0.2 → 0.8, w = 0.52;
 *  then 0.04 → 0.16, w = 0.504; last: w·x − 1 = 0.008, dL/dw = 0.032. */
export const LOOP = `const w = hg.tensor(1, { requiresGrad: true, name: 'w' });
const x = hg.tensor(2, { name: 'x' });
const lin = new hg.Module('Lin', (t) => t.mul(w));
for (let i = 0; i < 3; i++) hg.tidy(() => {
  const loss = lin.call(x).sub(1).pow(2);
  w.grad = null;
  loss.backward();
  hg.noGrad(() => w.sub_(w.grad.mul(0.1)));
  console.log('step', i);
});
w.grad = null;
const out = lin.call(x); out.name = 'out';
const loss = out.sub(1).pow(2); loss.name = 'loss';
loss.backward();`;
export const loop = run(LOOP);
