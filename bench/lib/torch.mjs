// The PyTorch peer: bench/peers/torch_peer.py in a python3 subprocess,
// torch.set_num_threads(1), fed the same data as the JS peers (as JSON on
// stdin, so every peer computes on the same f32 values). Reports
// `{available: false, why}` instead of failing when python3 or torch is missing.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { W1, W2, W3 } from './data.mjs';

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'peers', 'torch_peer.py');
const list = (a) => Array.from(a);

/** The workload data (bench/lib/data.mjs) as the Python peer reads it. */
export function payload(data) {
  const p = {};
  if (data.w1) p.w1 = { samples: W1.samples, xs: list(data.w1.xs), ys: list(data.w1.ys), layers: data.w1.layers.map((l) => ({ nin: l.nin, nout: l.nout, params: list(l.params) })) };
  if (data.w2) p.w2 = { ...W2, ...Object.fromEntries(Object.entries(data.w2).map(([k, v]) => [k, list(v)])) };
  if (data.w3) p.w3 = { ...W3, x: list(data.w3.x) };
  return p;
}

/** Runs the peer once: `{available, version, tasks: {task: {times, loss, grads, calls}}}`. */
export function runTorch(data, tasks, { reps = 0, warmup = 1, timeout = 600_000 } = {}) {
  const python = process.env.PYTHON || 'python3';
  const r = spawnSync(python, [script], {
    input: JSON.stringify({ data, tasks, reps, warmup }), encoding: 'utf8', maxBuffer: 64 << 20, timeout,
  });
  if (r.error) return { available: false, why: `${python}: ${r.error.message}` };
  if (r.status !== 0) return { available: false, why: `torch peer exited with ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-1)[0]}` };
  return JSON.parse(r.stdout);
}
