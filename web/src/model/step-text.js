// Pure: the sentence under the player for frame k (shared by the playground
// and the embed, and unit-tested).
import { describeStep } from './trace-model.js';

/** True when the trace has no backward event at all (e.g. a forward-hooks-only lesson). */
export const hasBackward = (model) => model.forwardEnd < model.steps.length;

/**
 * The step sentence: { text, error }. `error` is the run's error (or null).
 */
export function stepSentence(model, k, frame, error = null) {
  const total = model.steps.length;
  if (error && k === total) return { text: `Error${error.line != null ? ` (line ${error.line}${error.column != null ? `, column ${error.column}` : ''})` : ''}: ${error.message}`, error: true };
  if (!hasBackward(model) && k === total && total > 0) {
    return { text: `Forward pass recorded: ${model.tensors.size} tensors, ${model.nodes.size} backward nodes. This program never calls backward(), so there is no backward pass to play.`, error: false };
  }
  if (k === 0) return { text: 'Start: nothing has run yet.', error: false };
  if (k === model.forwardEnd && k < total) {
    return { text: `Forward pass recorded: ${model.tensors.size} tensors, ${model.nodes.size} backward nodes. Press Backward (or →) to run the backward pass.`, error: false };
  }
  return { text: describeStep(model, frame.step), error: frame.step?.event.type === 'error' };
}
