// The Python mode's runtime (loadPython from web/pkg/python.js): lines in the
// trace, lifetime of engine handles under CPython's reference counting, bad
// input, and the engine still working after every error. Expected values are
// PyTorch's (written out by hand here: the corpus test compares whole
// programs with real PyTorch's output).
import test from 'node:test';
import assert from 'node:assert/strict';
import { pkgUrl } from '../load-package.mjs';

const { loadPython } = await import(pkgUrl('python.js'));

const py = await loadPython();

test('print lines are log events in their place, after the hook that printed them', () => {
  const r = py.run([
    'import torch',
    'a = torch.tensor(2.0, requires_grad=True)',
    'c = a * 3',
    'def h(g):',
    '    print("in hook", g)',
    '    return g * 2',
    'c.register_hook(h)',
    'print("before")',
    'c.backward()',
    'print(a.grad)',
  ].join('\n'));
  assert.equal(r.exception, null);
  assert.equal(r.stdout, 'before\nin hook tensor(1.)\ntensor(6.)\n');
  const logs = r.trace.filter((e) => e.type === 'log').map((e) => e.text);
  assert.deepEqual(logs, ['before', 'in hook tensor(1.)', 'tensor(6.)']);
  const hookAt = r.trace.findIndex((e) => e.type === 'hook' && e.kind === 'tensor');
  const printedAt = r.trace.findIndex((e) => e.type === 'log' && e.text.startsWith('in hook'));
  assert.ok(hookAt >= 0 && printedAt > hookAt, 'the hook line follows its hook event');
  // the hook row points at the Python line that registered it (line 7)
  const rows = r.graph.tensors.flatMap((t) => t.hooks).concat(r.graph.nodes.flatMap((n) => [...n.preHooks, ...n.postHooks]));
  const row = rows.find((x) => x.kind === 'tensor');
  assert.deepEqual(row.source, { line: 7, column: 1 });
  assert.equal(row.name, 'h');
});

test('an exception in a hook propagates as the user raised it, through the hook line', () => {
  const r = py.run([
    'import torch',
    'x = torch.tensor(1.0, requires_grad=True)',
    'y = x * 2',
    'def bad(g):',
    '    raise ValueError("no thanks")',
    'y.register_hook(bad)',
    'y.backward()',
  ].join('\n'), { filename: 'prog.py' });
  assert.deepEqual(r.exception, { type: 'ValueError', message: 'no thanks', line: 5 });
  assert.match(r.stderr, /File "prog.py", line 7, in <module>[\s\S]*File "prog.py", line 5, in bad[\s\S]*ValueError: no thanks\n$/);
  assert.doesNotMatch(r.stderr, /\/lib\/hookgrad/, 'the shim\'s frames are not shown');
  const last = r.trace[r.trace.length - 1];
  assert.equal(last.type, 'error');
  assert.equal(last.line, 5);
});

test('syntax errors, missing names and autograd errors: Python\'s types and PyTorch\'s words', () => {
  let r = py.run('x = (1,\nprint(x)\n');
  assert.equal(r.exception.type, 'SyntaxError');
  assert.equal(r.exception.line, 1);
  r = py.run('import torch\ntorch.kron(1)\n');
  assert.deepEqual(r.exception, { type: 'NotImplementedError', message: 'hookgrad does not implement torch.kron yet', line: 2 });
  r = py.run('import torch\ntorch.kronn(1)\n'); // not PyTorch's either: PyTorch's AttributeError
  assert.deepEqual(r.exception, { type: 'AttributeError', message: "module 'torch' has no attribute 'kronn'", line: 2 });
  r = py.run('import torch\ntorch.ones(2).logdet()\n');
  assert.deepEqual(r.exception, { type: 'NotImplementedError', message: 'hookgrad does not implement torch.Tensor.logdet yet', line: 2 });
  r = py.run('import torch\nx = torch.tensor(1.0)\n(x * 2).backward()\n');
  assert.deepEqual(r.exception, { type: 'RuntimeError', message: 'element 0 of tensors does not require grad and does not have a grad_fn', line: 3 });
  r = py.run('import torch\ntorch.zeros(2).cuda()\n');
  assert.deepEqual(r.exception, { type: 'AssertionError', message: 'Torch not compiled with CUDA enabled', line: 2 });
  // and the engine works after every one of them
  r = py.run('import torch\na = torch.tensor([1., 2.], requires_grad=True)\n(a * a).sum().backward()\nprint(a.grad)\n');
  assert.equal(r.stdout, 'tensor([2., 4.])\n');
});

test('a 1,000-step training loop with hooks stays flat (handles freed by reference counting)', () => {
  const program = (steps) => `
import torch, torch.nn as nn
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 8)
        self.l2 = nn.Linear(8, 1)
    def forward(self, x):
        return self.l2(self.l1(x).tanh())
net = Net()
net.l1.register_full_backward_hook(lambda m, gi, go: None)
x = torch.randn(16, 4)
y = torch.randn(16, 1)
for step in range(${steps}):
    out = net(x)
    out.register_hook(lambda g: g * 1)
    loss = ((out - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in net.parameters():
            p -= 0.01 * p.grad
            p.grad = None
print(round(loss.item(), 4))
`;
  py.run(program(5), { trace: false });
  const before = py.hg.memory();
  const r = py.run(program(1000), { trace: false });
  assert.equal(r.exception, null, r.stderr);
  const after = py.hg.memory();
  assert.deepEqual({ t: after.tensors, n: after.nodes, h: after.handles }, { t: before.tensors, n: before.nodes, h: before.handles });
  assert.ok(after.wasmBytes <= before.wasmBytes + 1024 * 1024, `wasm memory grew from ${before.wasmBytes} to ${after.wasmBytes}`);
});

test('tensor hooks: one registered on every op of a chain is called for each; a gradient the hook keeps stays usable, one it drops is released at once', () => {
  const program = `
import torch
from torch.utils.hooks import RemovableHandle
x = torch.tensor([1.0, 2.0], requires_grad=True)
calls = [0]
kept = []
def count(g):
    calls[0] += 1
def keep(g):
    kept.append(g)
for step in range(3):
    y = x
    for i in range(500):
        y = y * 1.0 if i % 2 else y + 0.0
        y.register_hook(count)
    y.register_hook(keep)
    y.register_hook(lambda g: g * 2)
    y.sum().backward()
print(calls[0], x.grad, kept[-1], len(kept))
before = RemovableHandle.next_id
h = x.register_hook(count)
print(h.id == before, RemovableHandle.next_id == before + 1)
RemovableHandle.next_id = 7
print(x.register_hook(count).id, RemovableHandle.next_id)
`;
  py.run(program, { trace: false });
  const before = py.hg.memory();
  const r = py.run(program, { trace: false });
  assert.equal(r.exception, null, r.stderr);
  // PyTorch: 1,500 calls; x.grad sums three passes of 2 · 1; `keep` ran before the doubling hook.
  assert.equal(r.stdout, 'tensor([6., 6.]) tensor([1., 1.]) 3\nTrue True\n7 8\n'.replace(/^/, '1500 '));
  const after = py.hg.memory();
  assert.deepEqual({ t: after.tensors, n: after.nodes, h: after.handles }, { t: before.tensors, n: before.nodes, h: before.handles });
});
