// Typed example: memory (tidy/keep/dispose/memory), layout, new ops,
// higher-order gradients, saved-tensor hooks, multi-grad hooks.
import init, * as hg from 'hookgrad';
import type { Tensor, MemoryInfo } from 'hookgrad';

await init();

const w = hg.randn([3, 3], { seed: 1, requiresGrad: true });
for (let step = 0; step < 3; step++) {
  const lossValue: number = hg.tidy(() => {
    const loss = w.matmul(hg.ones([3])).pow(2).sum();
    loss.backward();
    return loss.item();
  });
  console.log(lossValue);
}
const kept: { y: Tensor; both: Tensor[] } = hg.tidy(() => {
  const tmp = hg.keep(w.mul(2));
  return { y: tmp.add(1), both: [tmp, tmp.neg()] };
});
hg.dispose(kept);
kept.y.dispose();
const mem: MemoryInfo = hg.memory();
console.log(mem.tensors, mem.nodes, mem.handles, mem.wasmBytes);

const strides: number[] = w.t().stride();
const contiguous: boolean = w.t().isContiguous();
const p = w.abs().sqrt().softmax(1).logSoftmax(0).unsqueeze(0).squeeze(0).squeeze().expand([-1, 3]);
const joined: Tensor = hg.cat([w, w], 0);
const stacked: Tensor = hg.stack([w, w], 1);

// Higher-order gradients.
const x = hg.tensor(3, { requiresGrad: true });
const y = x.pow(3);
const [dy] = hg.grad(y, x, { createGraph: true });
if (dy) {
  const [d2y] = hg.grad(dy, x);
  console.log(d2y?.item()); // 18
}
y.backward(undefined, { createGraph: true });

// Saved-tensor hooks: pack to anything, unpack to a Tensor.
const out: Tensor = hg.savedTensorsHooks(
  (t) => ({ values: t.toArray(), shape: t.shape }),
  (packed) => hg.tensor(packed.values, { shape: packed.shape }),
  () => x.mul(x),
);
out.backward();

// Multi-grad hooks: all gradients at once, or the first one.
const a = hg.tensor(1, { requiresGrad: true });
const b = hg.tensor(2, { requiresGrad: true });
hg.registerMultiGradHook([a, b], (grads) => { console.log(grads.map((g) => g?.item() ?? null)); });
hg.registerMultiGradHook([a, b], (grad) => { console.log(grad.item()); }, { mode: 'any' }).remove();
a.mul(b).backward();
console.log(strides, contiguous, p, joined, stacked);

// Custom autograd functions (torch.autograd.Function).
const Exp = hg.customFunction('Exp', {
  forward(ctx, t: Tensor) { const r = t.exp(); ctx.saveForBackward(r); return r; },
  backward(ctx, g) { return g === null ? null : g.mul(ctx.savedTensors[0]); },
});
const e: Tensor = Exp.apply(x);
const [p1, p2]: Tensor[] = hg.applyCustomFunction('Id', [x], [x.mul(1)], (grads) => grads, { materializeGrads: false });
console.log(e, p1, p2);
