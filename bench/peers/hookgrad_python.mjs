// hookgrad's Python mode as a peer: bench/peers/torch_peer.py itself — the
// very script the PyTorch peer runs in CPython — run by `hookgrad run`'s
// runtime (Pyodide + the torch shim over the engine), fed the same JSON on
// its stdin. What it reports is what a reader's PyTorch script costs here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'torch_peer.py');

/** Loads Pyodide and the shim once: `{py, readyMs}`. */
export async function loadPythonPeer(pkgDir) {
  const t0 = performance.now();
  const { loadPython } = await import(path.join(pkgDir, 'python.js'));
  const py = await loadPython();
  return { py, readyMs: performance.now() - t0 };
}

/** As runTorch (bench/lib/torch.mjs): `{available, version, tasks: {task: {times, loss, grads, calls}}}`. */
export function runPythonPeer(py, payload, tasks, { reps = 0, warmup = 1 } = {}) {
  py.pyodide.FS.writeFile('/tmp/bench-request.json', JSON.stringify({ data: payload, tasks, reps, warmup }));
  const source = `import sys\nsys.stdin = open('/tmp/bench-request.json')\n${fs.readFileSync(script, 'utf8')}`;
  const r = py.run(source, { trace: false, filename: 'torch_peer.py' });
  if (r.exception) return { available: false, why: `${r.exception.type}: ${r.exception.message}` };
  return JSON.parse(r.stdout);
}
