// Pure model: recorded graph() + trace() data → replayable steps and frames.
// No DOM, no engine: `frameAt(model, k)` is what the page shows after the
// first k trace events, so stepping back and scrubbing are free. The types
// are the engine's (crate/js/protocol.d.ts, copied to web/pkg).
import { formatList, formatValue, sameValue } from './format.js';
import { inPlaceChanges } from './inplace.js';

export { sameValue };

/** @typedef {import('../../pkg/protocol').GraphInfo} GraphInfo */
/** @typedef {import('../../pkg/protocol').TraceEvent} TraceEvent */
/** @typedef {{ level: 'log' | 'warn' | 'error', text: string, source: 'program' | 'engine' | 'page', hook: number | null, at: number }} ConsoleLine */

const BACKWARD_HOOK_KINDS = new Set([
  'tensor', 'retain-grad', 'node-pre', 'node-post', 'post-accumulate',
  'module-backward', 'module-full-backward', 'module-full-backward-pre',
  // Backward needs a saved tensor back; a multi-grad hook sees gradients.
  'unpack', 'multi-grad',
]);

/** True for events that belong to a backward pass. */
export function isBackwardEvent(ev) {
  return ev.type === 'node' || ev.type === 'accumulate' || (ev.type === 'hook' && BACKWARD_HOOK_KINDS.has(ev.kind));
}

/** Hook events that correspond to a user function call (retain-grad is built in). */
export const isUserHookEvent = (ev) => ev.type === 'hook' && ev.kind !== 'retain-grad';

export const HOOK_KIND_LABEL = {
  tensor: 'tensor hook', 'retain-grad': 'retain_grad', 'node-pre': 'node pre-hook', 'node-post': 'node hook',
  'post-accumulate': 'post-accumulate-grad hook', 'module-pre': 'forward pre-hook', 'module-forward': 'forward hook',
  'module-backward': 'legacy backward hook', 'module-full-backward': 'full backward hook',
  'module-full-backward-pre': 'full backward pre-hook',
  pack: 'pack hook', unpack: 'unpack hook', 'multi-grad': 'multi-grad hook',
};

/**
 * A module call's label: its name in the module that called it (the
 * engine's `path`, PyTorch's named_modules() name) before its class, so two
 * Linear layers read "encoder: Linear" and "head: Linear"; "(call 2)" from
 * a module's second call on.
 */
export function callLabel({ name, path = null, callNr = 1 }) {
  return `${path ? `${path}: ` : ''}${name}${callNr > 1 ? ` (call ${callNr})` : ''}`;
}

/** "tensor hook cHook": the kind, then the function's name unless it only repeats the kind ("pack hook", not "pack hook pack"). */
export function hookTitle(ev) {
  const kind = HOOK_KIND_LABEL[ev.kind] || ev.kind;
  if (ev.kind === 'retain-grad' || !ev.name || ev.name === '<lambda>' || ev.name.toLowerCase() === ev.kind) return kind;
  return `${kind} ${ev.name}`;
}

/**
 * Builds the static model: lookups, module calls, step list with labels, and
 * the console lines. `log` events are not steps: each becomes a console line
 * shown from the step of the event before it (a hook's line follows the
 * hook's event, so it appears when the hook fires).
 * @param {GraphInfo} graph
 * @param {TraceEvent[]} fullTrace
 */
export function analyze(graph, fullTrace = []) {
  /** @type {ConsoleLine[]} */
  const lines = [];
  const trace = [];
  for (const ev of fullTrace) {
    if (ev.type === 'log') lines.push({ level: ev.level, text: ev.text, source: 'program', hook: ev.hook ?? null, at: trace.length });
    else {
      trace.push(ev);
      if (ev.type === 'warning') lines.push({ level: 'warn', text: ev.message, source: 'engine', hook: null, at: trace.length });
    }
  }
  const tensors = new Map((graph?.tensors || []).map((t) => [t.id, t]));
  const nodes = new Map((graph?.nodes || []).map((n) => [n.id, n]));
  const accOf = new Map(); // leaf tensor id → its AccumulateGrad node id
  const tensorOfNode = new Map(); // node id → tensor drawn next to it
  for (const n of nodes.values()) if (n.variable != null) { accOf.set(n.variable, n.id); tensorOfNode.set(n.id, n.variable); }
  for (const t of tensors.values()) if (t.gradFn != null && !tensorOfNode.has(t.gradFn)) tensorOfNode.set(t.gradFn, t.id);
  // Where each hook handle is listed in the graph (tensor hooks, node pre/post
  // hooks; a module's backward hooks under the handle the user holds).
  const handleOwner = new Map();
  for (const t of tensors.values()) for (const h of t.hooks || []) handleOwner.set(h.handle, { tensor: t.id, kind: h.kind, name: h.name });
  for (const n of nodes.values()) {
    for (const h of n.preHooks || []) if (!handleOwner.has(h.handle)) handleOwner.set(h.handle, { node: n.id, kind: h.kind, name: h.name, pre: true });
    for (const h of n.postHooks || []) if (!handleOwner.has(h.handle)) handleOwner.set(h.handle, { node: n.id, kind: h.kind, name: h.name });
  }
  const nodeOfTensor = (tid) => tensors.get(tid)?.gradFn ?? accOf.get(tid) ?? null;

  // A tensor hook's event carries its tensor's name: the name of a tensor
  // the final graph no longer holds (a training loop's earlier, tidied steps).
  const tracedNames = new Map();
  for (const ev of trace) if (ev.type === 'hook' && ev.tensorName) tracedNames.set(ev.tensor, ev.tensorName);
  const tName = (id) => { const t = tensors.get(id); return t?.name || tracedNames.get(id) || `t${id}`; };
  const nName = (id) => nodes.get(id)?.name || `node ${id}`;

  const moduleCalls = []; const stack = []; const lastCallOf = new Map(); const callsOf = new Map();
  const createdAt = { tensor: new Map(), node: new Map() };
  const hookOps = []; // op steps run inside a forward (pre-)hook that has not returned yet
  const madeByHook = new Map(); // tensor id → the forward (pre-)hook that made it
  const steps = [];
  let focus = {}; let firstBackward = -1; let firstDrawnBackward = -1;
  trace.forEach((ev, i) => {
    let f = {}; let label = ev.type;
    const top = stack[stack.length - 1];
    switch (ev.type) {
      case 'op': {
        f = { node: ev.node ?? null, tensor: ev.output ?? null, module: top?.key };
        if (ev.output != null && !createdAt.tensor.has(ev.output)) createdAt.tensor.set(ev.output, i);
        if (ev.node != null && !createdAt.node.has(ev.node)) createdAt.node.set(ev.node, i);
        if (top) { if (ev.output != null) top.tensors.add(ev.output); if (ev.node != null) top.nodes.add(ev.node); }
        const ins = (ev.inputs || []).map(tName).join(', ');
        label = `${tName(ev.output)} created from (${ins}), grad_fn ${ev.name || nName(ev.node)}`;
        // Made inside a forward (pre-)hook: named by that hook once it returns.
        if (top && (top.phase === 'pre-hook' || top.phase === 'hook')) hookOps.push(i);
        break;
      }
      case 'module': {
        if (ev.phase === 'pre-hook' || !top || top.moduleId !== ev.moduleId) {
          if (ev.phase !== 'end') {
            const n = (callsOf.get(ev.moduleId) || 0) + 1; callsOf.set(ev.moduleId, n);
            const call = { key: `m${ev.moduleId}.${n}`, moduleId: ev.moduleId, name: ev.module, path: ev.path ?? null, callNr: n, parent: top?.key ?? null, tensors: new Set(), nodes: new Set(), start: i, end: trace.length };
            call.label = callLabel(call);
            moduleCalls.push(call); stack.push(call); lastCallOf.set(ev.moduleId, call.key);
          }
        }
        const cur = stack[stack.length - 1];
        if (cur) cur.phase = ev.phase;
        f = { module: cur?.key };
        label = `${cur?.path ? `${cur.path} (${ev.module})` : ev.module}: ${{ 'pre-hook': 'forward pre-hooks', forward: 'forward()', hook: 'forward hooks', end: 'returns' }[ev.phase] || ev.phase}`;
        if (ev.phase === 'end' && cur) { cur.end = i; stack.pop(); }
        break;
      }
      case 'node':
        f = { node: ev.node, tensor: tensorOfNode.get(ev.node) ?? null };
        label = `${ev.name || nName(ev.node)} ran`;
        break;
      case 'hook': {
        // The function's name, as the user wrote it, when it has one: the
        // reader finds "tensor hook double on y" in the program.
        const kind = hookTitle(ev);
        if (ev.tensor != null) f = { tensor: ev.tensor, node: ev.kind === 'pack' || ev.kind === 'unpack' ? ev.node ?? null : nodeOfTensor(ev.tensor) };
        else if (Array.isArray(ev.tensors) && ev.tensors.length) f = { tensor: ev.tensors[0], node: nodeOfTensor(ev.tensors[0]) };
        else if (ev.node != null) f = { node: ev.node, tensor: tensorOfNode.get(ev.node) ?? null };
        if (ev.tensor == null && ev.node == null) {
          const o = handleOwner.get(ev.handle);
          if (o?.tensor != null) f = { tensor: o.tensor, node: nodeOfTensor(o.tensor) };
          else if (o?.node != null) f = { node: o.node, tensor: tensorOfNode.get(o.node) ?? null };
        }
        if (ev.moduleId != null) f.module = lastCallOf.get(ev.moduleId) ?? top?.key;
        if (ev.kind === 'module-pre' || ev.kind === 'module-forward') {
          for (const j of hookOps.splice(0)) {
            const op = trace[j];
            madeByHook.set(op.output, { name: ev.name, kind: ev.kind, step: i });
            steps[j].label = `${tName(op.output)} created from (${(op.inputs || []).map(tName).join(', ')}) by the ${HOOK_KIND_LABEL[ev.kind]} ${ev.name || ''}, grad_fn ${op.name || nName(op.node)}`.replace(' ,', ',');
          }
        }
        label = `${kind} on ${hookPlace(ev, tName, nName)}`;
        break;
      }
      case 'accumulate':
        f = { tensor: ev.tensor, node: accOf.get(ev.tensor) ?? null };
        label = `${tName(ev.tensor)}.grad written`;
        break;
      case 'grad-set':
        f = { tensor: ev.tensor, node: accOf.get(ev.tensor) ?? null };
        label = ev.grad == null ? `${tName(ev.tensor)}.grad set to None` : `${tName(ev.tensor)}.grad assigned`;
        break;
      case 'warning': case 'error':
        f = { ...focus, ...(ev.node != null ? { node: ev.node } : {}), ...(ev.tensor != null ? { tensor: ev.tensor } : {}) };
        if (ev.node == null && ev.tensor == null && top) f = { module: top.key };
        label = ev.type === 'warning' ? 'warning' : 'error';
        break;
      default: break;
    }
    if (firstBackward < 0 && isBackwardEvent(ev)) firstBackward = i;
    if (firstDrawnBackward < 0 && ev.type === 'node' && nodes.has(ev.node)) {
      // The start of that pass: hooks that ran before its first node belong to it.
      firstDrawnBackward = i;
      while (firstDrawnBackward > 0 && isBackwardEvent(trace[firstDrawnBackward - 1])) firstDrawnBackward--;
    }
    focus = f;
    steps.push({ index: i, event: ev, label, focus: f, backward: isBackwardEvent(ev) });
  });
  for (const c of stack) c.end = trace.length;
  // Only calls with something in the graph are drawn: a training loop's steps
  // run in hg.tidy, so their tensors and nodes are released and the graph
  // holds only what outlived them (a call keeps its number, e.g. "call 302").
  const callByKey = new Map(moduleCalls.map((c) => [c.key, c]));
  const drawn = new Set();
  for (const c of moduleCalls) {
    if (![...c.tensors].some((id) => tensors.has(id)) && ![...c.nodes].some((id) => nodes.has(id))) continue;
    for (let p = c; p && !drawn.has(p.key); p = callByKey.get(p.parent)) drawn.add(p.key);
  }
  const shownCalls = moduleCalls.filter((c) => drawn.has(c.key));

  // A tensor's grad before the trace: null if the trace writes it, else its final value.
  const written = new Set(trace.filter((e) => e.type === 'accumulate' || e.type === 'grad-set' || (e.type === 'hook' && e.kind === 'retain-grad')).map((e) => e.tensor));
  const initialGrad = new Map([...tensors.values()].map((t) => [t.id, written.has(t.id) ? null : t.grad ?? null]));
  // The player starts before the first backward pass the figure can show: in
  // a training loop, the passes of earlier (released) steps are not drawn.
  const forwardEnd = firstDrawnBackward >= 0 ? firstDrawnBackward : firstBackward >= 0 ? firstBackward : trace.length;
  const userHookSteps = steps.filter((s) => isUserHookEvent(s.event)).map((s) => s.index);
  // The first event of the pass the figure draws: after the last backward
  // event of earlier passes whose tensors are gone (a training loop's tidied
  // steps), 0 when there were none. What follows it (zeroGrad, the last
  // forward) is part of the story.
  const firstDrawnOp = Math.min(forwardEnd, ...[...createdAt.tensor].filter(([id]) => tensors.has(id)).map(([, i]) => i));
  let figureStart = 0;
  for (let i = firstDrawnOp - 1; i >= 0; i--) if (isBackwardEvent(trace[i])) { figureStart = i + 1; break; }
  const model = { graph, trace, lines, tensors, nodes, accOf, tensorOfNode, handleOwner, moduleCalls: shownCalls, createdAt, madeByHook, steps, initialGrad, userHookSteps, forwardEnd, figureStart, tName, nName };
  // Edges whose gradient a hook changed in place, at that hook's step.
  model.inPlace = inPlaceChanges(model);
  return model;
}

/** What a hook event ran on, in words: a tensor, a module, a node, or the tensors a multi-grad hook watches. */
export function hookPlace(ev, tName, nName) {
  if (Array.isArray(ev.tensors)) return ev.tensors.map(tName).join(', ');
  return ev.tensor != null ? tName(ev.tensor) : ev.module != null ? ev.module : ev.node != null ? nName(ev.node) : '';
}

/** Pins a warning or error where it happened; the same message at the same place (e.g. a hook's error and the aborted backward) is pinned once. */
function addPin(pins, ev, focus, step) {
  const pin = { level: ev.type, message: ev.message, node: focus.node ?? null, tensor: focus.tensor ?? null, module: focus.module ?? null, step };
  if (!pins.some((p) => samePin(p, pin))) pins.push(pin);
}

/** The same message at the same place: one pin. */
export function samePin(a, b) {
  return a.message === b.message && a.node === b.node && a.tensor === b.tensor && a.module === b.module;
}

/** Every pin the run will show, in the order they appear (the last frame's pins): the figure keeps room for them from the start. */
export function runPins(model) {
  const pins = [];
  model.steps.forEach(({ event: ev, focus }, i) => { if (ev.type === 'warning' || ev.type === 'error') addPin(pins, ev, focus, i); });
  return pins;
}

/**
 * State after the first k events (0 ≤ k ≤ trace.length): grads, finished nodes,
 * the node/tensor in focus, values on edges, each hook's last before → after,
 * and warnings/errors pinned where they happened.
 */
export function frameAt(model, k) {
  k = Math.max(0, Math.min(k, model.steps.length));
  const grads = new Map(model.initialGrad);
  const done = new Set(); const nodeIO = new Map(); const hookFires = new Map(); const pins = [];
  let edges = [];
  for (let i = 0; i < k; i++) {
    const { event: ev, focus } = model.steps[i];
    const last = i === k - 1;
    // Backward's write, or the program's own assignment (`t.grad = null`, zeroGrad()).
    if (ev.type === 'accumulate' || ev.type === 'grad-set') grads.set(ev.tensor, ev.grad ?? null);
    else if (ev.type === 'hook') {
      if (ev.kind === 'retain-grad' && ev.tensor != null) grads.set(ev.tensor, ev.after ?? ev.before ?? null);
      const fire = { before: ev.before, after: ev.after, kind: ev.kind, step: i, count: (hookFires.get(ev.handle)?.count || 0) + 1 };
      hookFires.set(ev.handle, fire);
      // A node's post-hook (the legacy module hook is one) runs after the
      // node's own event and may replace its grad_inputs: from now on the
      // edges carry what the hook returned, and this step shows the change.
      const io = POST_HOOK_KINDS.has(ev.kind) && ev.node != null ? nodeIO.get(ev.node) : null;
      if (io && Array.isArray(ev.after)) {
        nodeIO.set(ev.node, { ...io, gradInputs: ev.after });
        if (last) edges = edgesOf(model, ev.node, ev.after, Array.isArray(ev.before) ? ev.before : null);
      }
      // The same tensor on other edges, changed in place by this hook.
      for (const c of model.inPlace?.get(i) || []) {
        const from = nodeIO.get(c.from);
        if (from) nodeIO.set(c.from, { ...from, gradInputs: Object.assign([...from.gradInputs], { [c.index]: c.after }) });
        if (last) edges.push({ from: c.from, to: c.to, index: c.index, value: c.after, before: c.before, by: c.by });
      }
    } else if (ev.type === 'node') {
      done.add(ev.node); nodeIO.set(ev.node, { gradOutputs: ev.gradOutputs, gradInputs: ev.gradInputs });
      if (last) edges = edgesOf(model, ev.node, ev.gradInputs, null);
    } else if (ev.type === 'warning' || ev.type === 'error') addPin(pins, ev, focus, i);
  }
  const cur = k > 0 ? model.steps[k - 1] : null;
  const created = (map, id) => !map.has(id) || map.get(id) < k;
  return {
    k, total: model.steps.length, step: cur, focus: cur?.focus || {}, grads, done, nodeIO, hookFires, pins, edges,
    tensorCreated: (id) => created(model.createdAt.tensor, id),
    nodeCreated: (id) => created(model.createdAt.node, id),
  };
}

/** Where the program registered the hook of a hook step ({ line, column } from graph()'s hook rows), or null. */
export function stepSource(model, step) {
  const ev = step?.event;
  if (ev?.type !== 'hook') return null;
  for (const t of model.tensors.values()) for (const h of t.hooks || []) if (h.handle === ev.handle) return h.source || null;
  for (const n of model.nodes.values()) for (const h of [...(n.preHooks || []), ...(n.postHooks || [])]) if (h.handle === ev.handle) return h.source || null;
  return null;
}

/** Hook kinds that run after their node and receive (and may replace) its grad_inputs. */
const POST_HOOK_KINDS = new Set(['node-post', 'module-backward']);

/** The value each next_functions edge of `node` carries now (`before`: what it carried before a hook changed it). */
function edgesOf(model, node, values, before) {
  const n = model.nodes.get(node);
  return (n?.next || []).map((e, j) => {
    const edge = { from: node, to: e.node, index: j, value: values?.[j] ?? null };
    if (before && !sameValue(before[j] ?? null, edge.value)) edge.before = before[j] ?? null;
    return edge;
  }).filter((e) => e.to != null);
}


/**
 * The console pane's lines: the program's output and the engine's warnings
 * from the trace, each with `at` (shown once at least `at` steps are shown),
 * and the uncaught error last.
 * @returns {ConsoleLine[]}
 */
export function consoleLines(model, error = null) {
  const lines = [...model.lines];
  // A Python error shows Python's traceback (the program's own frames: python/hookgrad_runner.py).
  if (error) lines.push({ level: 'error', text: error.traceback || error.message, source: 'page', hook: null, at: model.steps.length });
  return lines;
}

/** Human sentence for a step, with values (used by the step panel and tests). */
export function describeStep(model, step) {
  if (!step) return 'Ready.';
  const ev = step.event;
  switch (ev.type) {
    case 'node': return `${step.label}: grad_outputs ${formatList(ev.gradOutputs)} → grad_inputs ${formatList(ev.gradInputs)}`;
    case 'hook': {
      if (ev.kind === 'module-backward' && Array.isArray(ev.before)) return `${step.label}: ${legacyCaption(model, ev)}`;
      // Saved tensors: what the op saved, and what pack kept instead (not a tensor: no value to show).
      if (ev.kind === 'pack') return `${step.label}: ${nName(model, ev.node)} saves ${formatValue(ev.before)} for backward${ev.after == null ? '; pack keeps something else in its place (not a tensor)' : `; pack keeps ${formatValue(ev.after)}`}`;
      // retain_grad stores the gradient it sees in .grad (PyTorch 2: after the tensor's other hooks).
      if (ev.kind === 'retain-grad' && ev.tensor != null) return `${step.label}: ${model.tName(ev.tensor)}.grad = ${formatValue(ev.after ?? ev.before)}`;
      if (ev.kind === 'unpack') return `${step.label}: ${nName(model, ev.node)} needs it back; unpack gives ${formatValue(ev.after)}`;
      const changed = model.inPlace?.get(step.index) || [];
      // A hook that left its value as it was: say what it saw, once.
      if (!changed.length && sameValue(ev.before ?? null, ev.after ?? null)) return `${step.label}: sees ${formatHookValue(ev.kind, ev.after)} and leaves it unchanged`;
      const also = changed.map((c) => `${nName(model, c.from)} → ${nName(model, c.to)}`).join(', ');
      return `${step.label}: ${formatHookValue(ev.kind, ev.before)} → ${formatHookValue(ev.kind, ev.after)}${changed.length
        ? `, changed in place — the same tensor is on the edge ${also}, which now carries ${formatValue(changed[0].after)} too` : ''}`;
    }
    case 'accumulate': return `${step.label}: ${formatValue(ev.grad)}`;
    // What PyTorch does with it: AccumulateGrad (and retain_grad) write a
    // fresh gradient into a None .grad and add to any other value.
    case 'grad-set': return ev.grad == null
      ? `${step.label}: the next backward that writes ${model.tName(ev.tensor)}.grad starts from nothing instead of adding to the old value.`
      : `${step.label}: ${formatValue(ev.grad)}; the next backward that writes ${model.tName(ev.tensor)}.grad adds to this value.`;
    case 'warning': case 'error': return `${ev.type === 'error' ? 'Error' : 'Warning'}: ${ev.message}`;
    default: return step.label;
  }
}

const nName = (model, id) => model.nName(id);

/**
 * Why the legacy hook sees what it sees: its entries are the grad_inputs of
 * the node it sits on, one per next edge of that node — named by the tensor
 * at the end of each edge (x·y, r; for Linear: bias, x, the transposed weight).
 */
export function legacyCaption(model, ev) {
  const node = model.nodes.get(ev.node);
  const out = model.tensorOfNode.get(ev.node);
  const whose = (j) => {
    const e = node?.next?.[j];
    if (!e || e.node == null) return 'a constant (no gradient)';
    const n = model.nodes.get(e.node);
    const t = n?.variable ?? model.tensorOfNode.get(e.node);
    const name = t != null ? model.tName(t) : null;
    if (name && !/^t\d+$/.test(name)) return name;
    // An unnamed intermediate: say what it was made of (Linear: TBackward0 of weight, i.e. Wᵀ).
    const from = (n?.next || []).map((x) => (x.node != null ? model.nodes.get(x.node)?.variable : null)).filter((v) => v != null).map(model.tName);
    return `the output of ${n?.name || 'a node'}${from.length ? ` of ${from.join(', ')}` : ''}`;
  };
  const parts = ev.before.map((v, j) => `${formatValue(v)} for ${whose(j)}`);
  const changed = !sameValue(ev.before, ev.after);
  // PyTorch's own test (its FutureWarning): a forward of one backward node
  // is reported right; with more, the hook sees only the last node's inputs.
  const call = model.moduleCalls.find((c) => c.nodes.has(ev.node));
  const mod = ev.module || 'the module';
  const inner = (node?.next || []).map((e) => (e.node != null ? model.tensorOfNode.get(e.node) : null)).filter((t) => t != null && call?.tensors.has(t)).map(model.tName);
  const verdict = !call || call.nodes.size <= 1 ? `that node’s inputs are ${mod}’s own, so here the legacy hook happens to be right`
    : `one per input of that node, not of ${mod} (${inner.length ? `${inner.join(', ')} was made inside it` : `its forward has ${call.nodes.size} backward nodes`})`;
  return `sees ${formatList(ev.before)}, the grad_inputs of ${out != null ? `${model.tName(out)}’s ` : ''}${node?.name || 'its node'}: ${parts.join(', ')} — ${verdict}${changed ? `; it returns ${formatList(ev.after)}` : ''}.`;
}

/** Hook kinds whose before/after values are lists (tuples in PyTorch). */
export const LIST_HOOK_KINDS = new Set(['node-pre', 'node-post', 'module-pre', 'module-forward', 'module-backward', 'module-full-backward', 'module-full-backward-pre', 'multi-grad']);

/** Formats a hook's before/after value according to its kind. */
export function formatHookValue(kind, v, maxLen = Infinity) {
  return LIST_HOOK_KINDS.has(kind) && Array.isArray(v) ? formatList(v, maxLen) : formatValue(v, maxLen);
}
