// The lessons' prose for a reader who picked Python: the same explanation in
// PyTorch's names (retain_grad(), named_modules(), create_graph=True), and
// without what only JavaScript needs (hg.tidy, "null in JavaScript"). Only
// the paragraphs that name an API differ; the others are the JS lesson's.
// tests/web-unit/lessons-prose.test.mjs keeps JavaScript names out of them.

export const PYTHON_PROSE = {
  'tensor-hooks': {
    text: [null,
      'retain_grad() is a hook as well. Under PyTorch 1.x it runs where you called it, so e.grad keeps the gradient before the doubling hook (1). Since PyTorch 2.0 it always runs last (2). Flip the switch and run again.'],
  },
  'legacy-hook': {
    text: ['register_backward_hook, deprecated in PyTorch, does not hook the module. It hooks the grad_fn of the module’s output, whichever node that is, and reports that node’s grad_input.'],
  },
  capture: {
    text: ['A common use of hooks: find a submodule by its name in named_modules(), save its output with a forward hook and the gradient at that output with a full backward hook.',
      'The hooks append tensors to plain lists; they stay valid after the hook returns and are printed at the end.'],
  },
  'gradient-penalty': {
    text: ['With create_graph=True the backward pass records what it computes, so the gradient dloss/dw has a grad_fn and can be differentiated again — the basis of gradient penalties and of second derivatives.'],
  },
  'saved-tensors': {
    text: ['Ops keep some tensors for backward: mul keeps both inputs, exp keeps its result. torch.autograd.graph.saved_tensors_hooks lets you decide how: pack runs when an op saves a tensor during forward, unpack when backward needs it back.'],
  },
  'multi-grad': {
    text: ['torch.autograd.graph.register_multi_grad_hook watches a group of tensors. In mode "all" it fires once per backward, when every gradient that backward will compute has arrived, with None for the tensors it does not reach.',
      'In mode "any" it fires once per backward, for the first gradient that arrives.'],
  },
  'training-loop': {
    title: 'Hooks in a training loop',
    text: ['Training repeats forward, backward and an update, and every step builds a fresh graph. Python frees a finished step’s tensors and graph as soon as nothing refers to them any more, so the loop needs no clean-up of its own.',
      'The full backward hook on the Tanh layer fires every step; the tensors it receives belong to the step, so it keeps a plain number (item()). The figure shows the graph of one last forward and backward, after training.'],
  },
};

/** The lesson's title and paragraphs in `lang` ('js' or 'python'). */
export function lessonProse(lesson, lang) {
  const py = lang === 'python' ? PYTHON_PROSE[lesson.id] : null;
  return {
    title: py?.title ?? lesson.title,
    text: lesson.text.map((p, i) => py?.text?.[i] ?? p),
  };
}
