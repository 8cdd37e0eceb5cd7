// Typed example: graph()/trace() data, and what the types refuse.
import * as hg from 'hookgrad';
import initEngine, { initSync } from 'hookgrad';

declare const wasmBytes: Uint8Array;
initSync({ module: wasmBytes });
void initEngine; // the browser form: await initEngine();

const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const c = a.mul(3);
const g = hg.graph([c]);
console.log(g.tensors.length, g.nodes.length);
const events = hg.trace(() => c.backward());
for (const e of events) {
  // TraceEvent is a union discriminated by `type` (protocol.d.ts).
  if (e.type === 'hook') { const kind: hg.HookKind = e.kind; console.log(kind, e.before, e.after); }
  else if (e.type === 'accumulate') console.log(e.tensor, e.grad);
  // The program's own `.grad = …` / zeroGrad(): the value now in it, or null.
  else if (e.type === 'grad-set') { const now: hg.Values | null = e.grad; console.log(e.tensor, now); }
}
const run: hg.TraceRun = hg.traceRun(() => { hg.recordLog('log', 'hello'); c.sum(); });
console.log(run.trace.length, run.graph.nodes.map((n) => n.name));

// Misuse the types catch (each line must be an error for tsc to pass):
// @ts-expect-error a tensor hook returns a Tensor or nothing, not a number
c.registerHook((g) => g.item());
// @ts-expect-error pow takes a number or a Tensor exponent, not a string
a.pow('2');
// @ts-expect-error unknown semantics
hg.setSemantics('pytorch-3');
// @ts-expect-error the option is requiresGrad (camelCase)
hg.tensor(1, { requires_grad: true });
// @ts-expect-error Module.call checks the forward's argument types
new hg.Module('M', (x: hg.Tensor) => x.mul(2)).call(1, 2);
// @ts-expect-error a full backward hook's gradients are arrays
new hg.nn.Linear(2, 2).registerFullBackwardHook((m, gradInput: hg.Tensor) => gradInput);
// @ts-expect-error reduction is 'mean' | 'sum' | 'none'
hg.nn.functional.mseLoss(a, a, { reduction: 'avg' });
// @ts-expect-error registerMultiGradHook 'any' gets one gradient, not an array
hg.registerMultiGradHook([a], (grads: (hg.Tensor | null)[]) => grads, { mode: 'any' });
// @ts-expect-error an accumulate event has no `kind`
events.forEach((e) => e.type === 'accumulate' && e.kind);
// @ts-expect-error a grad-set event's tensor is an id, not a Tensor
events.forEach((e) => e.type === 'grad-set' && e.tensor.item());
// @ts-expect-error .shape is read-only
a.shape = [1];
