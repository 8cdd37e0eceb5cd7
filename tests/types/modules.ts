// Typed example: modules, their hooks, nn.*.
import init, * as hg from 'hookgrad';
import type { Tensor, Module } from 'hookgrad';

await init();

// Args and output types come from the forward function.
const mul3 = new hg.Module('Mul3', (x: Tensor, y: Tensor, z: Tensor) => x.mul(y).mul(z));
const a = hg.tensor(2, { requiresGrad: true });
const b = hg.tensor(3, { requiresGrad: true });
const c = hg.tensor(4, { requiresGrad: true });
const out: Tensor = mul3.call(a, b, c);

mul3.registerForwardPreHook((mod, args) => [args[0].mul(1), args[1], args[2]]);
mul3.registerForwardPreHook((mod, args) => args[0], { prepend: true });
mul3.registerForwardPreHook((mod, args, kwargs) => [args, { ...kwargs, scale: 2 }], { withKwargs: true });
mul3.registerForwardHook((mod, args, output) => output.mul(2));
mul3.registerForwardHook((mod, args, kwargs, output) => { console.log(mod.name, args.length, kwargs, output.item()); }, { withKwargs: true });
const legacy = mul3.registerBackwardHook((mod, gradInput, gradOutput) => { console.log(gradInput.map((g) => g?.item()), gradOutput.length); });
legacy.remove();
mul3.registerFullBackwardHook((mod, gradInput, gradOutput) => gradInput.map((g) => g && g.mul(0)));
mul3.registerFullBackwardPreHook((mod, gradOutput) => gradOutput, { prepend: true });
out.backward();

const kw = new hg.Module('Scaled', (x: Tensor, opts: { scale: number }) => x.mul(opts.scale));
kw.callWithKwargs([a], { scale: 3 });

// nn.Linear, Sequential and the activation modules are Module<[Tensor], Tensor>.
const lin = new hg.nn.Linear(10, 10, { bias: true, seed: 1 });
const net = new hg.nn.Sequential(lin, new hg.nn.ReLU(), new hg.nn.Linear(10, 2), new hg.nn.Tanh(), new hg.nn.Sigmoid());
const x = hg.randn([4, 10], { seed: 3 });
const y: Tensor = net.call(x);
const loss = hg.nn.functional.mseLoss(y, hg.zeros([4, 2]), { reduction: 'mean' });
const ce: Tensor = hg.nn.functional.crossEntropy(y, [0, 1, 1, 0]);
loss.add(ce).backward();

const acts: Record<string, Tensor> = {};
for (const [name, mod] of net.namedModules()) {
  if (name === '') continue;
  mod.registerForwardHook((m: Module, args: unknown[], output: Tensor) => { acts[name] = output; });
}
const params: [string, Tensor][] = net.namedParameters();
const weight: Tensor = lin.getParameter('weight');
const all: Tensor[] = net.parameters();
net.zeroGrad();

const holder: Module<[Tensor], Tensor> = new hg.Module('Holder', (t: Tensor): Tensor => t.mul(holder.getParameter('w')));
holder.registerParameter('w', hg.tensor([1, 2], { requiresGrad: true }));
holder.addModule('child', lin);

hg.registerModuleForwardPreHook((mod, args) => { console.log(mod.name, args.length); });
hg.registerModuleForwardHook((mod, args, output) => output);
hg.registerModuleFullBackwardHook((mod, gradInput, gradOutput) => { console.log(gradInput.length, gradOutput.length); }).remove();
hg.registerModuleFullBackwardPreHook((mod, gradOutput) => gradOutput).remove();

console.log(params.length, weight.shape, all.length, acts);
