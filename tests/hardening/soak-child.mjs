// One memory-soak scenario, run by soak.test.mjs in a child process started
// with --expose-gc (so the test works under a plain `node --test`). Prints a
// JSON line with the wasm memory size at start, after warm-up (half the
// cycles) and at the end.
//
//   node --expose-gc tests/hardening/soak-child.mjs <scenario> <cycles>
import { hg, L, memoryBytes } from './harness.mjs';
import { generate, runHookgrad } from './programs.mjs';

if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');

const quietWarn = console.warn;
console.warn = () => {};

/**
 * Settle: gc and let FinalizationRegistry callbacks run, until the live
 * handle count stops falling. Freeing one handle can free a hook whose
 * closure held the next handle, so a chain needs several rounds.
 */
async function settle() {
  // Finalization callbacks run late on a loaded machine: a single round
  // without progress is not the end. Stop after three rounds in a row that
  // free nothing (or when nothing is left).
  let last = Infinity; let still = 0;
  for (let i = 0; i < 40 && still < 3; i++) {
    global.gc();
    await new Promise((r) => setTimeout(r, 2));
    const now = hg.memory().handles;
    still = now === 0 || now >= last ? still + 1 : 0;
    last = Math.min(last, now);
  }
}

/**
 * SOAK_TURNS=n: yield as the loop does — gc and n event-loop turns
 * (setImmediate) every 100 cycles, nothing more (the issue: two). V8 runs
 * one FinalizationRegistry's callbacks per task, so the handles must all be
 * in one registry for the wasm heap to stay flat that way.
 */
const TURNS = Number(process.env.SOAK_TURNS || 0);
async function turns() {
  global.gc();
  for (let k = 0; k < TURNS; k++) await new Promise((r) => setImmediate(r));
}
const pause = TURNS ? turns : settle;

let programSeed = 1;

// Functions built outside the cycles' scopes: they reach no tensor.
const soakForward = (a, b) => a.matmul(b).tanh();
const noop = () => {};
const half = (g) => g.mul(0.5);
const keepInto = (arr) => (g) => { arr.push(g); };
const makeModule = () => new hg.Module('Soak', soakForward);

const scenarios = {
  /**
   * The cycle: build -> hooks -> traced backward -> graph() ->
   * remove -> drop. The hooks close over the tensors, node and module they
   * are on (what learners write), and are removed at the end of the cycle.
   */
  'cycle-with-remove'(i) {
    const handles = [];
    const x = L([[1, 2, 3], [4, 5, 6]]);
    const w = L([[0.5], [-1], [2]]);
    const m = makeModule();
    handles.push(m.registerForwardHook((mod, args, out) => { void m; void out.shape; }));
    // A full backward hook is copied into the graph at forward time (as in
    // PyTorch), so removing its handle does not free it: one that reached y
    // would leak; see the 'full-backward-hook-removed' scenario.
    handles.push(m.registerFullBackwardHook(noop));
    const y = m.call(x, w);
    const z = y.mul(y).sum();
    handles.push(x.registerHook((g) => g.mul(0.5)));
    handles.push(w.registerHook(() => { void w.shape; }));
    handles.push(y.registerHook((g) => { void y.id; return g; }));
    y.retainGrad();
    handles.push(z.gradFn.registerPrehook((go) => { void z; return go; }));
    handles.push(y.gradFn.registerHook((gi) => gi));
    handles.push(x.registerPostAccumulateGradHook((t) => { void t.grad; void x; }));
    const events = hg.trace(() => z.backward());
    const g = hg.graph([z]);
    if (!events.length || !g.nodes.length || !x.grad) throw new Error('cycle did not run');
    JSON.stringify(g);
    if (i % 7 === 0) hg.trace(() => { throw new Error('error events are freed too'); });
    for (const h of handles) h.remove();
  },
  /**
   * The loop (issue 10): a ~50-op graph with every hook kind — tensor,
   * retain-grad, post-accumulate, node pre/post, module forward pre/forward,
   * full backward and full backward pre — traced backward, graph(), every
   * handle removed. The hooks are written the way learners write them: in
   * one scope with a closure that uses the output (V8 then gives every
   * closure of the scope a context holding `root`).
   */
  'issue-cycle'(i) {
    const handles = [];
    const x = L([[1, 2], [3, 4]]);
    const w = L([[0.5, -0.25], [0.75, 1]]);
    const m = new hg.Module('Block', (a, b) => {
      let h = a.matmul(b);
      for (let k = 0; k < 10; k++) h = h.tanh().mul(1.01).add(0.01).sub(h.mul(0.001));
      return h;
    });
    handles.push(m.registerForwardPreHook(() => {}));
    handles.push(m.registerForwardHook(() => {}));
    handles.push(m.registerFullBackwardHook(() => {}));
    handles.push(m.registerFullBackwardPreHook(() => {}));
    const y = m.call(x, w);
    const root = y.mul(y).sum();
    handles.push(x.registerHook(() => {}));
    handles.push(y.registerHook((g) => g));
    y.retainGrad();
    handles.push(root.gradFn.registerPrehook(() => {}));
    handles.push(root.gradFn.registerHook(() => {}));
    handles.push(w.registerPostAccumulateGradHook(() => {}));
    const events = hg.trace(() => root.backward());
    const g = hg.graph([root]);
    if (!events.length || g.nodes.length < 40 || !x.grad) throw new Error(`cycle did not run (${g.nodes.length} nodes)`);
    JSON.stringify(g);
    for (const h of handles) h.remove();
    void i;
  },
  /** The minimal reproduction (was ~3 KB per iteration). */
  'issue-minimal'() {
    const x = hg.tensor([[1, 2], [3, 4]], { requiresGrad: true });
    const m = new hg.Module('Block', (a) => a.tanh());
    const h = m.registerFullBackwardHook(() => {});
    const root = m.call(x).sum();
    hg.trace(() => root.backward());
    h.remove();
  },
  /** Hooks that reach nothing they are registered on, never removed. */
  'cycle-no-remove'(i) {
    const x = L([1, 2, 3]);
    const y = x.mul(2).sin();
    const kept = [];
    x.registerHook(half);
    y.registerHook(keepInto(kept));
    y.retainGrad();
    y.gradFn.registerPrehook(noop);
    y.gradFn.registerHook(noop);
    x.registerPostAccumulateGradHook(noop);
    const m = makeModule();
    m.registerForwardHook(noop);
    m.registerFullBackwardPreHook(noop);
    const out = m.call(y.reshape([1, 3]), L([[1], [2], [3]])).sum();
    const events = hg.trace(out.backward.bind(out, undefined, { retainGraph: i % 2 === 0 }));
    if (!events.length || kept.length !== 1) throw new Error('cycle did not run');
    hg.graph([out]);
    hg.grad(x.mul(x).sum(), x);
    try { L([1, 2]).mul(2).backward(); } catch { /* errors are freed too */ }
  },
  /** The random programs of random-programs.test.mjs (hooks, retainGrad, node hooks, two passes). */
  'random-programs'() {
    runHookgrad(hg, generate(programSeed++));
  },
  /** Hooks closing over the very tensor / node / module they are on, never removed. */
  'self-capturing-hooks'() {
    const x = L([1, 2, 3]);
    const y = x.mul(2);
    const n = y.gradFn;
    x.registerHook(() => { void x; });
    n.registerHook(() => { void n; });
    const m = new hg.Module('M', (a) => a.exp());
    m.registerForwardHook(() => { void m; });
    m.call(y).sum().backward();
  },
  /**
   * The documented answer to self-capturing hooks: each cycle in hg.tidy.
   * Releasing the handles breaks the JS -> wasm -> JS cycle; a module's
   * that reaches the module is removed and the module disposed (`new
   * hg.Module` is not scoped by tidy).
   */
  'self-capturing-hooks-in-tidy'() {
    hg.tidy(() => {
      const x = L([1, 2, 3]);
      const y = x.mul(2);
      const n = y.gradFn;
      x.registerHook(() => { void x; });
      n.registerHook(() => { void n; });
      const m = new hg.Module('M', (a) => a.exp());
      const h = m.registerForwardHook(() => { void m; });
      m.call(y).sum().backward();
      h.remove();
      m.dispose(); // modules are not scoped: the forward's scope reaches m
    });
  },
  /** Shared-scope hooks, each cycle in hg.tidy. */
  'shared-scope-hooks-in-tidy'() {
    hg.tidy(() => {
      const x = L([1, 2, 3]);
      x.registerHook(() => {});
      hg.trace(() => { x.mul(2).sum().backward(); });
    });
  },
  /** A full backward hook reaching the module's output, removed after backward. */
  'full-backward-hook-removed'() {
    const m = makeModule();
    let y;
    const h = m.registerFullBackwardHook(() => { void y; });
    y = m.call(L([[1, 2]]), L([[1], [2]]));
    y.sum().backward();
    h.remove();
  },
  /**
   * Hooks that capture nothing, but a sibling closure in the same scope
   * (here the function given to trace) uses the tensor: V8 keeps one
   * context per scope, so the hook still reaches the tensor.
   */
  'shared-scope-hooks'() {
    const x = L([1, 2, 3]);
    x.registerHook(() => {});
    hg.trace(() => { x.mul(2).sum().backward(); });
  },
};

const [name, cyclesArg] = process.argv.slice(2);
const run = scenarios[name];
if (!run) throw new Error(`unknown scenario ${name}; one of ${Object.keys(scenarios).join(', ')}`);
const cycles = Number(cyclesArg || 2000);
const SETTLE_EVERY = Number(process.env.SOAK_SETTLE_EVERY || 100);
// Warm-up is the first half: the allocator may still take a step or two
// there; a leak shows as steady growth over the second half. With brief
// yields (TURNS), the first tenth, as the issue measured it: a backlog of
// unfreed handles shows as growth after it.
const warmup = Math.max(1, Math.floor(cycles / (TURNS ? 10 : 2)));
const t0 = Date.now();
await settle();
const start = memoryBytes();
const checkpoints = [];
for (let i = 0; i < cycles; i++) {
  run(i);
  if ((i + 1) % SETTLE_EVERY === 0) await pause();
  if (i + 1 === warmup || (i + 1) % Math.max(1, Math.floor(cycles / 8)) === 0) {
    await pause();
    checkpoints.push([i + 1, memoryBytes()]);
  }
}
await settle();
const end = memoryBytes();
const warm = checkpoints.find(([c]) => c === warmup)[1];
console.warn = quietWarn;
console.log(JSON.stringify({ scenario: name, cycles, warmup, start, warm, end, growthAfterWarmup: end - warm, checkpoints, heapUsed: process.memoryUsage().heapUsed, ms: Date.now() - t0 }));
