// Pure model: recorded graph() + trace() data → replayable steps and frames.
// No DOM, no engine: `frameAt(model, k)` is what the page shows after the
// first k trace events, so stepping back and scrubbing are free.
import { formatList, formatValue } from './format.js';

const BACKWARD_HOOK_KINDS = new Set([
  'tensor', 'retain-grad', 'node-pre', 'node-post', 'post-accumulate',
  'module-backward', 'module-full-backward', 'module-full-backward-pre',
]);

/** True for events that belong to a backward pass. */
export function isBackwardEvent(ev) {
  return ev.type === 'node' || ev.type === 'accumulate' || (ev.type === 'hook' && BACKWARD_HOOK_KINDS.has(ev.kind));
}

/** Hook events that correspond to a user function call (retain-grad is built in). */
export const isUserHookEvent = (ev) => ev.type === 'hook' && ev.kind !== 'retain-grad';

const MODULE_BACKWARD_KINDS = new Set(['module-backward', 'module-full-backward', 'module-full-backward-pre']);

export const HOOK_KIND_LABEL = {
  tensor: 'tensor hook', 'retain-grad': 'retain_grad', 'node-pre': 'node pre-hook', 'node-post': 'node hook',
  'post-accumulate': 'post-accumulate-grad hook', 'module-pre': 'forward pre-hook', 'module-forward': 'forward hook',
  'module-backward': 'legacy backward hook', 'module-full-backward': 'full backward hook',
  'module-full-backward-pre': 'full backward pre-hook',
};

/** Builds the static model: lookups, module calls, step list with labels. */
export function analyze(graph, trace = []) {
  const tensors = new Map((graph?.tensors || []).map((t) => [t.id, t]));
  const nodes = new Map((graph?.nodes || []).map((n) => [n.id, n]));
  const accOf = new Map(); // leaf tensor id → its AccumulateGrad node id
  const tensorOfNode = new Map(); // node id → tensor drawn next to it
  for (const n of nodes.values()) if (n.variable != null) { accOf.set(n.variable, n.id); tensorOfNode.set(n.id, n.variable); }
  for (const t of tensors.values()) if (t.gradFn != null && !tensorOfNode.has(t.gradFn)) tensorOfNode.set(t.gradFn, t.id);
  // Where each hook handle is listed in the graph (tensor hooks, node pre/post hooks).
  const handleOwner = new Map();
  for (const t of tensors.values()) for (const h of t.hooks || []) handleOwner.set(h.handle, { tensor: t.id, kind: h.kind, name: h.name });
  for (const n of nodes.values()) {
    for (const h of n.preHooks || []) if (!handleOwner.has(h.handle)) handleOwner.set(h.handle, { node: n.id, kind: h.kind, name: h.name, pre: true });
    for (const h of n.postHooks || []) if (!handleOwner.has(h.handle)) handleOwner.set(h.handle, { node: n.id, kind: h.kind, name: h.name });
  }
  const nodeOfTensor = (tid) => tensors.get(tid)?.gradFn ?? accOf.get(tid) ?? null;

  const tName = (id) => { const t = tensors.get(id); return t?.name || `t${id}`; };
  const nName = (id) => nodes.get(id)?.name || `node ${id}`;

  const moduleCalls = []; const stack = []; const lastCallOf = new Map(); const alias = new Map();
  const createdAt = { tensor: new Map(), node: new Map() };
  const steps = [];
  let focus = {}; let firstBackward = -1;
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
        break;
      }
      case 'module': {
        if (ev.phase === 'pre-hook' || !top || top.moduleId !== ev.moduleId) {
          if (ev.phase !== 'end') {
            const n = moduleCalls.filter((c) => c.moduleId === ev.moduleId).length + 1;
            const call = { key: `m${ev.moduleId}.${n}`, moduleId: ev.moduleId, name: ev.module, callNr: n, parent: top?.key ?? null, tensors: new Set(), nodes: new Set(), start: i, end: trace.length };
            moduleCalls.push(call); stack.push(call); lastCallOf.set(ev.moduleId, call.key); lastCallOf.set(ev.module, call.key);
          }
        }
        const cur = stack[stack.length - 1];
        f = { module: cur?.key };
        label = `${ev.module}: ${{ 'pre-hook': 'forward pre-hooks', forward: 'forward()', hook: 'forward hooks', end: 'returns' }[ev.phase] || ev.phase}`;
        if (ev.phase === 'end' && cur) { cur.end = i; stack.pop(); }
        break;
      }
      case 'node':
        f = { node: ev.node, tensor: tensorOfNode.get(ev.node) ?? null };
        label = `${ev.name || nName(ev.node)} ran`;
        break;
      case 'hook': {
        const kind = HOOK_KIND_LABEL[ev.kind] || ev.kind;
        if (ev.tensor != null) f = { tensor: ev.tensor, node: nodeOfTensor(ev.tensor) };
        else if (ev.node != null) f = { node: ev.node, tensor: tensorOfNode.get(ev.node) ?? null };
        if (ev.tensor == null && ev.node == null) {
          const o = handleOwner.get(ev.handle);
          if (o?.tensor != null) f = { tensor: o.tensor, node: nodeOfTensor(o.tensor) };
          else if (o?.node != null) f = { node: o.node, tensor: tensorOfNode.get(o.node) ?? null };
          else if (MODULE_BACKWARD_KINDS.has(ev.kind)) {
            // The engine lists a module's backward hook on the node it really runs
            // on, under that node's own handle; the node's event follows the hook's.
            const next = trace.slice(i + 1).find((e) => e.type === 'node');
            const n = next ? nodes.get(next.node) : null;
            if (n) {
              f = { node: n.id, tensor: tensorOfNode.get(n.id) ?? null };
              const row = [...(n.preHooks || []), ...(n.postHooks || [])].find((r) => r.kind === ev.kind);
              if (row) alias.set(ev.handle, row.handle);
            }
          }
        }
        if (ev.module != null || ev.moduleId != null) f.module = lastCallOf.get(ev.moduleId ?? ev.module) ?? lastCallOf.get(ev.module) ?? top?.key;
        const on = ev.tensor != null ? tName(ev.tensor) : ev.node != null ? nName(ev.node) : ev.module != null ? moduleName(ev.module, moduleCalls) : '';
        label = `${kind} on ${on}`;
        break;
      }
      case 'accumulate':
        f = { tensor: ev.tensor, node: accOf.get(ev.tensor) ?? null };
        label = `${tName(ev.tensor)}.grad written`;
        break;
      case 'warning': case 'error':
        f = { ...focus, ...(ev.node != null ? { node: ev.node } : {}), ...(ev.tensor != null ? { tensor: ev.tensor } : {}) };
        if (ev.node == null && ev.tensor == null && top) f = { module: top.key };
        label = ev.type === 'warning' ? 'warning' : 'error';
        break;
      default: break;
    }
    if (firstBackward < 0 && isBackwardEvent(ev)) firstBackward = i;
    focus = f;
    steps.push({ index: i, event: ev, label, focus: f, backward: isBackwardEvent(ev) });
  });
  for (const c of stack) c.end = trace.length;

  // A tensor's grad before the trace: null if the trace writes it, else its final value.
  const written = new Set(trace.filter((e) => e.type === 'accumulate' || (e.type === 'hook' && e.kind === 'retain-grad')).map((e) => e.tensor));
  const initialGrad = new Map([...tensors.values()].map((t) => [t.id, written.has(t.id) ? null : t.grad ?? null]));
  const userHookSteps = steps.filter((s) => isUserHookEvent(s.event)).map((s) => s.index);
  return { graph, trace, tensors, nodes, accOf, tensorOfNode, handleOwner, alias, moduleCalls, createdAt, steps, initialGrad, userHookSteps, forwardEnd: firstBackward < 0 ? trace.length : firstBackward, tName, nName };
}

function moduleName(m, calls) {
  if (typeof m === 'string') return m;
  return calls.find((c) => c.moduleId === m)?.name ?? `module ${m}`;
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
    if (ev.type === 'accumulate') grads.set(ev.tensor, ev.grad ?? null);
    else if (ev.type === 'hook') {
      if (ev.kind === 'retain-grad' && ev.tensor != null) grads.set(ev.tensor, ev.after ?? ev.before ?? null);
      const fire = { before: ev.before, after: ev.after, kind: ev.kind, step: i, count: (hookFires.get(ev.handle)?.count || 0) + 1 };
      hookFires.set(ev.handle, fire);
      if (model.alias?.has(ev.handle)) hookFires.set(model.alias.get(ev.handle), fire);
    } else if (ev.type === 'node') {
      done.add(ev.node); nodeIO.set(ev.node, { gradOutputs: ev.gradOutputs, gradInputs: ev.gradInputs });
      if (last) {
        const n = model.nodes.get(ev.node);
        edges = (n?.next || []).map((e, j) => ({ from: ev.node, to: e.node, index: j, value: ev.gradInputs?.[j] ?? null })).filter((e) => e.to != null);
      }
    } else if (ev.type === 'warning' || ev.type === 'error') {
      const pin = { level: ev.type, message: ev.message, node: focus.node ?? null, tensor: focus.tensor ?? null, module: focus.module ?? null, step: i };
      // The same message at the same place (e.g. the hook's error and the aborted backward) is pinned once.
      if (!pins.some((p) => p.message === pin.message && p.node === pin.node && p.tensor === pin.tensor && p.module === pin.module)) pins.push(pin);
    }
  }
  const cur = k > 0 ? model.steps[k - 1] : null;
  const created = (map, id) => !map.has(id) || map.get(id) < k;
  return {
    k, total: model.steps.length, step: cur, focus: cur?.focus || {}, grads, done, nodeIO, hookFires, pins, edges,
    tensorCreated: (id) => created(model.createdAt.tensor, id),
    nodeCreated: (id) => created(model.createdAt.node, id),
  };
}

/**
 * Step after which a console line is shown. Lines carry `hook` (number of user
 * hook calls started before the line) and `inHook` (logged inside that call).
 */
export function revealStep(model, line) {
  const hs = model.userHookSteps; const n = line.hook || 0;
  if (line.inHook) {
    if (n <= hs.length) return hs[n - 1] + 1;
    const err = model.steps.findIndex((s, i) => s.event.type === 'error' && i > (hs[hs.length - 1] ?? -1));
    return err >= 0 ? err + 1 : model.steps.length;
  }
  if (n === 0) {
    // before any hook: after the forward events that precede the first hook/backward
    if (line.afterRun) return model.steps.length;
    return 0;
  }
  let i = (hs[n - 1] ?? model.steps.length - 1) + 1;
  while (i < model.steps.length && model.steps[i].backward && !isUserHookEvent(model.steps[i].event)) i++;
  return i;
}

/** Human sentence for a step, with values (used by the step panel and tests). */
export function describeStep(model, step) {
  if (!step) return 'Ready.';
  const ev = step.event;
  switch (ev.type) {
    case 'node': return `${step.label}: grad_outputs ${formatList(ev.gradOutputs)} → grad_inputs ${formatList(ev.gradInputs)}`;
    case 'hook': return `${step.label}: ${formatHookValue(ev.kind, ev.before)} → ${formatHookValue(ev.kind, ev.after)}`;
    case 'accumulate': return `${step.label}: ${formatValue(ev.grad)}`;
    case 'warning': case 'error': return `${ev.type === 'error' ? 'Error' : 'Warning'}: ${ev.message}`;
    default: return step.label;
  }
}

/** Hook kinds whose before/after values are lists (tuples in PyTorch). */
export const LIST_HOOK_KINDS = new Set(['node-pre', 'node-post', 'module-pre', 'module-forward', 'module-backward', 'module-full-backward', 'module-full-backward-pre']);

/** Formats a hook's before/after value according to its kind. */
export function formatHookValue(kind, v, maxLen = Infinity) {
  return LIST_HOOK_KINDS.has(kind) && Array.isArray(v) ? formatList(v, maxLen) : formatValue(v, maxLen);
}
