// Deep graphs in a child process (a stack overflow while freeing a graph
// happens in a finalizer and kills the process, so the parent only looks at
// the exit status). Prints one JSON line of timings.
//
//   node --expose-gc tests/hardening/deep-child.mjs <depth>
import { hg, L, canary } from './harness.mjs';

const n = Number(process.argv[2] || 30000);
const settle = async () => { for (let i = 0; i < 3; i++) { global.gc?.(); await new Promise((r) => setTimeout(r, 5)); } };
const chain = (x, op) => { let y = x; for (let i = 0; i < n; i++) y = op(y); return y; };
const ms = {};
const time = (k, f) => { const t0 = Date.now(); const r = f(); ms[k] = Date.now() - t0; return r; };

{
  const x = L(1);
  const y = chain(x, (t) => t.mul(1));
  time('backward', () => y.backward());
  if (x.grad.item() !== 1) throw new Error(`backward: x.grad ${x.grad.item()}`);
}
{
  const x = L(1);
  const y = chain(x, (t) => t.add(1));
  const g = time('grad', () => hg.grad(y, x)[0].item());
  if (g !== 1) throw new Error(`hg.grad: ${g}`);
  time('graph', () => hg.graph([y]).nodes.length);
  time('repr', () => y.toString());
  time('retainGraph', () => { y.backward(undefined, { retainGraph: true }); y.backward(); });
}
{
  const x = L([1, 2]);
  const y = chain(x, (t) => t.sin()).sum();
  const events = time('trace', () => hg.trace(() => y.backward()));
  if (!events.length) throw new Error('trace: no events');
}
{
  // A long chain with a hook on every 100th tensor.
  const x = L(1);
  let y = x;
  let calls = 0;
  for (let i = 0; i < n; i++) { y = y.mul(1); if (i % 100 === 0) y.registerHook(() => { calls++; }); }
  time('hooked', () => y.backward());
  if (calls !== Math.ceil(n / 100)) throw new Error(`hooks ran ${calls} times`);
}
await time('drop', () => settle());
await settle();
canary();
console.log(JSON.stringify({ depth: n, ms }));
