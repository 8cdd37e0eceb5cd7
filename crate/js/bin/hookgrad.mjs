#!/usr/bin/env node
// `npx hookgrad run FILE.py [--semantics pytorch-1] [--trace OUT.json] [--timeout SECONDS]`:
// runs a PyTorch script on hookgrad (Pyodide + the `torch` shim over the
// engine) as `python FILE.py` would: the script's stdout, warnings and
// tracebacks on stderr as Python writes them, exit status 1 on an uncaught
// exception. The script runs in a worker thread, so --timeout can stop a
// runaway loop and keep what it printed.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const USAGE = `usage: hookgrad run FILE.py [--semantics pytorch-2|pytorch-1] [--trace OUT.json] [--timeout SECONDS]

Runs a PyTorch program on hookgrad's engine and prints what PyTorch prints.
  --semantics pytorch-1   PyTorch 1.x hook order (retain_grad where it was called)
  --trace OUT.json        write {graph, trace}, the data the playground replays
  --timeout SECONDS       stop the program after SECONDS (exit status 124)`;

function fail(msg, code = 2) {
  process.stderr.write(`${msg}\n`);
  process.exit(code);
}

function parse(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === undefined) fail(USAGE, cmd ? 0 : 2);
  if (cmd === '--version') {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    fail(`hookgrad ${pkg.version}`, 0);
  }
  if (cmd !== 'run') fail(`hookgrad: unknown command '${cmd}'\n${USAGE}`);
  const o = { semantics: 'pytorch-2', trace: null, timeout: null, file: null };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const value = () => {
      if (i + 1 >= rest.length) fail(`hookgrad: ${a} needs a value\n${USAGE}`);
      return rest[++i];
    };
    if (a === '--semantics') o.semantics = value();
    else if (a === '--trace') o.trace = value();
    else if (a === '--timeout') o.timeout = Number(value());
    else if (a.startsWith('--')) fail(`hookgrad: unknown option ${a}\n${USAGE}`);
    else if (o.file === null) o.file = a;
    else fail(`hookgrad: one program at a time (got ${o.file} and ${a})`);
  }
  if (!['pytorch-2', 'pytorch-1'].includes(o.semantics)) fail(`hookgrad: --semantics must be pytorch-2 or pytorch-1, not ${o.semantics}`);
  if (o.timeout !== null && !(o.timeout > 0)) fail('hookgrad: --timeout needs a positive number of seconds');
  if (o.file === null) fail(`hookgrad: no program given\n${USAGE}`);
  return o;
}

const opts = parse(process.argv.slice(2));
let source;
try {
  source = fs.readFileSync(opts.file, 'utf8');
} catch (e) {
  fail(`hookgrad: can't open file '${path.resolve(opts.file)}': [Errno 2] No such file or directory`);
}

const worker = new Worker(fileURLToPath(new URL('./run-worker.mjs', import.meta.url)), {
  // Python 3.9+ names the script by its absolute path (__file__, tracebacks, warnings).
  workerData: { source, filename: path.resolve(opts.file), semantics: opts.semantics, trace: opts.trace !== null },
  stdout: false,
  stderr: false,
});
// --timeout counts the program's own time: from when Python is ready and the
// program starts (loading Pyodide is not the program's time).
let timer = null;
const arm = () => {
  if (opts.timeout === null) return;
  timer = setTimeout(() => {
    worker.terminate().then(() => {
      process.stderr.write(`hookgrad: ${opts.file} was stopped after ${opts.timeout} s (--timeout); the output above is what it printed\n`);
      process.exit(124);
    });
  }, opts.timeout * 1000);
};
worker.on('message', (m) => {
  if (m.type === 'start') arm();
  else if (m.type === 'out') process.stdout.write(m.text);
  else if (m.type === 'err') process.stderr.write(m.text);
  else if (m.type === 'done') {
    if (timer) clearTimeout(timer);
    if (opts.trace !== null) fs.writeFileSync(opts.trace, JSON.stringify({ graph: m.graph, trace: m.trace }));
    process.exitCode = m.exception ? 1 : 0;
    worker.terminate();
  } else if (m.type === 'crash') {
    if (timer) clearTimeout(timer);
    process.stderr.write(`hookgrad: internal error: ${m.message}\n`);
    process.exitCode = 3;
    worker.terminate();
  }
});
worker.on('error', (e) => {
  if (timer) clearTimeout(timer);
  process.stderr.write(`hookgrad: internal error: ${e && e.stack ? e.stack : e}\n`);
  process.exitCode = 3;
});
