// `hookgrad run FILE.py`: exit statuses, what goes to stdout and stderr (as
// `python FILE.py` writes them), --semantics, --trace and --timeout. Expected
// texts are Python's and PyTorch 2.x's (the corpus test compares whole
// programs against real PyTorch's recorded output).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'web', 'pkg', 'bin', 'hookgrad.mjs');
const corpus = path.join(root, 'tests', 'python', 'corpus');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hookgrad-cli-'));

function run(args, { cwd = tmp } = {}) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cli, ...args], { cwd });
    let stdout = ''; let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
const write = (name, text) => { fs.writeFileSync(path.join(tmp, name), text); return name; };
// `python NAME.py` (3.9+) names the script by its absolute path in tracebacks and warnings.
const shown = (name) => path.join(tmp, name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a script prints what PyTorch prints and exits 0', async () => {
  const r = await run(['run', write('ok.py', 'import torch\nx = torch.tensor([1., 2., 3.], requires_grad=True)\n(x * x).sum().backward()\nprint(x.grad)\n')]);
  assert.equal(r.stdout, 'tensor([2., 4., 6.])\n');
  assert.equal(r.stderr, '');
  assert.equal(r.code, 0);
});

test('an uncaught exception: Python\'s traceback on stderr with the user\'s lines, exit 1, output so far kept', async () => {
  const r = await run(['run', write('bad.py', 'import torch\nprint("first")\nx = torch.tensor(1.0)\ny = x * 2\ny.backward()\n')]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'first\n');
  assert.match(r.stderr, new RegExp(`^Traceback \\(most recent call last\\):\\n {2}File "${shown('bad.py')}", line 5, in <module>\\n {4}y\\.backward\\(\\)\\n`));
  assert.match(r.stderr, /\nRuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n$/);
});

test('a syntax error is Python\'s SyntaxError with its line, exit 1', async () => {
  const r = await run(['run', write('syntax.py', 'import torch\nx = (1,\n')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`File "${shown('syntax.py')}", line 2`));
  assert.match(r.stderr, /SyntaxError: /);
});

test('warnings go to stderr as Python writes them; stdout stays the script\'s', async () => {
  const r = await run(['run', 'video_3_2_broken_module_backward_hook.py'], { cwd: corpus });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, 'module: MyMultiply()\ngrad_input: (tensor(4.), tensor(6.))\ngrad_output: (tensor(1.),)\n');
  assert.match(r.stderr, /module\.py:\d+: FutureWarning: Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated/);
});

test('--semantics pytorch-1: the hook order of PyTorch 1.x (the video\'s numbers)', async () => {
  const two = await run(['run', 'video_1_2_with_hooks.py'], { cwd: corpus });
  const one = await run(['run', '--semantics', 'pytorch-1', 'video_1_2_with_hooks.py'], { cwd: corpus });
  assert.match(two.stdout, /\ne\.grad 2\.0\n$/);
  // retain_grad() before the doubling hook: PyTorch 1.x kept the un-doubled gradient
  assert.match(one.stdout, /\ne\.grad 1\.0\n$/);
  assert.equal(one.stdout.replace('e.grad 1.0', 'e.grad 2.0'), two.stdout);
});

test('--trace writes the graph and the trace, with print lines as log events', async () => {
  const out = path.join(tmp, 'trace.json');
  const r = await run(['run', '--trace', out, write('traced.py', 'import torch\na = torch.tensor(2.0, requires_grad=True)\nb = a * a\nb.register_hook(lambda g: print("hook", g))\nb.backward()\n')]);
  assert.equal(r.code, 0);
  const { graph, trace } = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.deepEqual(graph.nodes.map((n) => n.name).sort(), ['AccumulateGrad', 'MulBackward0']);
  assert.ok(trace.some((e) => e.type === 'log' && e.text === 'hook tensor(1.)'));
  const row = graph.tensors.flatMap((t) => t.hooks)[0];
  assert.deepEqual(row.source, { line: 4, column: 1 });
});

test('--timeout stops a runaway script with a clear message, keeping its output', async () => {
  const r = await run(['run', '--timeout', '3', write('loop.py', 'print("started", flush=True)\nwhile True:\n    pass\n')]);
  assert.equal(r.code, 124);
  assert.equal(r.stdout, 'started\n');
  assert.match(r.stderr, /loop\.py was stopped after 3 s \(--timeout\)/);
});

test('bad command lines: usage and status 2', async () => {
  let r = await run(['run']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no program given/);
  r = await run(['run', 'missing.py']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /can't open file '.*missing\.py': \[Errno 2\] No such file or directory/);
  r = await run(['run', '--semantics', 'pytorch-3', 'x.py']);
  assert.equal(r.code, 2);
});
