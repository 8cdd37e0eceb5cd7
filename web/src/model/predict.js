// Pure: "predict before it fires" for a lesson that declares `predict`
// (lesson 5: the legacy hook on Mul3). At the step just before the hook's
// event the reader picks what grad_input the hook will see. Both choices come
// from the recorded run: the hook's own grad_input (its event), and one
// gradient per module input (the inputs' final .grad, what a reader expects).

import { formatList } from './format.js';
import { callInputs } from './module-inputs.js';

/**
 * The question at frame k, or null: { at, question, choices: [{ text, right }], why }.
 * spec: { module, kind } — the hook kind on the module named `module`.
 */
export function predictionAt(model, k, spec) {
  if (!spec) return null;
  const i = model.steps.findIndex((s) => s.event.type === 'hook' && s.event.kind === spec.kind && s.event.module === spec.module);
  if (i < 0 || k !== i) return null; // asked right before that event is shown
  const ev = model.steps[i].event;
  const call = model.moduleCalls.find((c) => c.moduleId === ev.moduleId);
  const inputs = call ? callInputs(model, call) : [];
  const grads = inputs.map((t) => model.tensors.get(t)?.grad ?? null);
  if (!Array.isArray(ev.before) || grads.some((g) => g == null)) return null;
  const seen = formatList(ev.before); const perInput = formatList(grads);
  if (seen === perInput) return null; // nothing to tell apart
  const names = inputs.map(model.tName).join(', ');
  const choices = [{ text: `${perInput}, one per input (${names})`, right: false }, { text: seen, right: true }];
  return {
    at: i,
    question: `Predict: ${spec.module}(${names}) is about to run its ${ev.kind === 'module-backward' ? 'legacy backward hook' : 'hook'}. What grad_input will it see?`,
    choices,
    why: `It sees ${seen}: the grad_inputs of the node it sits on, not one gradient per input of ${spec.module}.`,
  };
}
