// Typed example: tensors, ops, backward and the tensor / node hooks.
import init, * as hg from 'hookgrad';
import type { Tensor, Node, RemovableHandle, NestedNumbers } from 'hookgrad';

await init();

const a: Tensor = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor([[1, 2], [3, 4]], { requiresGrad: true });
const flat = hg.tensor(new Float32Array([1, 2, 3, 4, 5, 6]), { shape: [2, 3] });
const c = a.mul(3).add(a.pow(2)).sub(1).div(hg.tensor(2));
const s = b.matmul(flat).relu().sum();
const m = b.mean(0, true).exp().log().tanh().sigmoid().neg().sin().cos();
const v = flat.t().transpose(0, 1).reshape([3, 2]).clone().detach();

const shape: number[] = flat.shape;
const x: number = c.item();
const arr: NestedNumbers = b.toArray();
const repr: string = String(c);
const fn: Node | null = c.gradFn;
const leaf: boolean = a.isLeaf && a.requiresGrad && !a.retainsGrad;
const ids: number[] = [a.id, b.version];
a.name = 'renamed';

// Tensor hooks: return a replacement, or nothing to keep the gradient.
const h1: RemovableHandle = c.registerHook((g) => g.mul(2));
const seen: Tensor[] = [];
c.registerHook((g) => { seen.push(g); });
c.registerHook(() => null);
c.retainGrad();
a.registerPostAccumulateGradHook((t) => { console.log(t.grad?.item()); });
h1.remove();

// Node hooks: arrays of gradients (null where PyTorch has None).
if (c.gradFn) {
  c.gradFn.registerPrehook((gradOutputs) => gradOutputs.map((g) => g && g.mul(0.5)));
  c.gradFn.registerHook((gradInputs, gradOutputs) => { console.log(gradInputs.length, gradOutputs.length); });
  const next: [Node | null, number][] = c.gradFn.nextFunctions;
  const leafOf: Tensor | null = next[0][0]?.variable ?? null;
  console.log(c.gradFn.name, leafOf?.id);
}

c.backward();
s.backward(undefined, { retainGraph: true });
m.backward(hg.ones([1, 2]), { inputs: [b] });
v.sum().backward(1, { createGraph: false });
const g: Tensor | null = a.grad;
a.grad = null;

const [ga, gb] = hg.grad(c.add(s), [a, b], { retainGraph: true, allowUnused: true });
const z = hg.noGrad(() => a.mul(2));
const enabled: boolean = hg.isGradEnabled();

hg.setSemantics('pytorch-1');
const sem: 'pytorch-2' | 'pytorch-1' = hg.getSemantics();
hg.setSemantics('pytorch-2');

// In-place ops return the tensor itself.
const w = hg.zeros([2, 2]).add_(1).mul_(hg.ones([2, 2])).sub_(0.5).div_(2).zero_();
const r = hg.randn([3], { seed: 7, requiresGrad: true });

console.log(shape, x, arr, repr, fn, leaf, ids, g, ga, gb, z, enabled, sem, w, r);
