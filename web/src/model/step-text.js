// Pure: the sentence under the player for frame k (shared by the playground
// and the embed, and unit-tested), and the "backward done" summary.
import { describeStep, HOOK_KIND_LABEL, hookPlace, isUserHookEvent } from './trace-model.js';
import { abbreviate } from './records.js';

/** True when the trace has no backward event at all (e.g. a forward-hooks-only lesson). */
export const hasBackward = (model) => model.forwardEnd < model.steps.length;

// The engine's messages are PyTorch's, word for word; where one suggests a
// Python keyword argument, the page adds the JS option of hookgrad's API.
const JS_OPTIONS = [
  [/retain_graph=True/, 'In hookgrad: `backward(undefined, { retainGraph: true })` or `hg.grad(…, { retainGraph: true })`.'],
  [/allow_unused=True/, 'In hookgrad: `hg.grad(outputs, inputs, { allowUnused: true })`.'],
  [/create_graph=True/, 'In hookgrad: `{ createGraph: true }`.'],
  [/requires_grad=False/, 'In hookgrad: the tensor was made without `{ requiresGrad: true }`.'],
];

/** The JS option a PyTorch-worded message refers to, or ''. */
export function jsOptionHint(message) {
  return JS_OPTIONS.filter(([re]) => re.test(message || '')).map(([, hint]) => hint).join(' ');
}

/** "line 3, column 7" for an error with a position in the program, or ''. */
export function errorPlace(error) {
  if (!error || error.line == null) return '';
  return `line ${error.line}${error.column != null ? `, column ${error.column}` : ''}`;
}

/** Display name of the hook a trace event belongs to. */
function hookName(model, ev) {
  if (ev.kind === 'retain-grad') return 'retain_grad';
  // The event's own name (the function's, when it ran) also names a hook the
  // final graph no longer lists: removed, or on a tensor hg.tidy released.
  const own = model.handleOwner.get(ev.handle)?.name || ev.name;
  if (own) return own;
  for (const n of model.nodes.values()) for (const r of [...(n.preHooks || []), ...(n.postHooks || [])]) if (r.handle === ev.handle && r.name) return r.name;
  return HOOK_KIND_LABEL[ev.kind] || ev.kind;
}

/**
 * What a finished backward leaves behind: every leaf's .grad (leaves that
 * require grad) and the backward hooks that fired, in trace order.
 */
export function backwardSummary(model, frame) {
  const leaves = [...model.tensors.values()].filter((t) => t.isLeaf && t.requiresGrad)
    .map((t) => ({ id: t.id, name: model.tName(t.id), grad: frame.grads.get(t.id) ?? null }));
  // Every user hook call of the run so far: backward hooks, and pack /
  // unpack / multi-grad hooks (a forward's pack hooks included).
  const hooks = model.steps.filter((s) => (s.backward || s.event.kind === 'pack') && isUserHookEvent(s.event) && s.index < frame.k).map((s) => {
    const ev = s.event;
    const on = hookPlace(ev, model.tName, model.nName);
    return { step: s.index, name: hookName(model, ev), kind: HOOK_KIND_LABEL[ev.kind] || ev.kind, on };
  });
  return { leaves, hooks };
}

/**
 * The step sentence: { text, error, summary? }. `error` is the run's error
 * (or null); `summary` (backwardSummary) at the last step of a backward.
 * `lang`: a Python program's reader writes `retain_graph=True` already, so
 * the JS option hints are for JavaScript only.
 */
export function stepSentence(model, k, frame, error = null, lang = 'js') {
  const hintFor = (message) => (lang === 'python' ? '' : jsOptionHint(message));
  const total = model.steps.length;
  if (error && k === total) {
    const where = errorPlace(error);
    const hint = hintFor(error.message);
    return { text: `Error${where ? ` (${where}${error.hook ? `, in ${error.hook}` : ''})` : ''}: ${error.message}${hint ? ` ${hint}` : ''}`, error: true };
  }
  if (!hasBackward(model) && k === total && total > 0) {
    return { text: `Forward pass done: ${model.tensors.size} tensors, ${model.nodes.size} backward nodes. This program never calls backward(), so there is no backward pass to play.`, error: false };
  }
  if (k === 0 && !hasBackward(model) && total > 0) {
    const hooks = model.userHookSteps.length;
    return { text: `Start: this program runs forward only (it never calls backward()). Press Play or → to watch its ${total} steps: each op${hooks ? `, and the ${hooks} hook call${hooks === 1 ? '' : 's'} that change${hooks === 1 ? 's' : ''} what the module gets or returns` : ''}.`, error: false };
  }
  if (k === 0) return { text: 'Start: nothing has run yet.', error: false };
  if (k === model.forwardEnd && k < total) {
    return { text: `Forward pass recorded: ${model.tensors.size} tensors, ${model.nodes.size} backward nodes. Press Backward (or →) to run the backward pass.`, error: false };
  }
  if (k === total && hasBackward(model) && frame.step?.event.type !== 'error') {
    return { text: 'Backward done.', error: false, summary: backwardSummary(model, frame) };
  }
  const isError = frame.step?.event.type === 'error';
  const text = describeStep(model, frame.step);
  const hint = isError ? hintFor(frame.step.event.message) : '';
  return { text: hint ? `${text} ${hint}` : text, error: isError };
}

/** The summary as short strings (the view lays them out). */
export function summaryParts(summary, maxLen = 32) {
  return {
    leaves: summary.leaves.map((l) => `${l.name} = ${abbreviate(l.grad, maxLen)}`),
    hooks: runs(summary.hooks.map((x) => `${x.name} (${x.on})`)),
  };
}

/** Repeats in a row as one entry: a hook that fired in every step of a
 *  training loop reads "watch (Tanh) × 302", not 302 entries. */
function runs(list) {
  const out = [];
  for (let i = 0; i < list.length;) {
    let j = i + 1; while (j < list.length && list[j] === list[i]) j++;
    out.push(j - i > 1 ? `${list[i]} × ${j - i}` : list[i]);
    i = j;
  }
  return out;
}
