// The lesson gallery's groups, and for each lesson one line of what the
// reader will see (a surprise lesson carries its own, `see`).
import { LESSONS } from './lessons.js';

export const GROUPS = [
  { id: 'family', title: 'The hook family', ids: ['tensor-hooks', 'handles', 'inplace', 'module-forward', 'legacy-hook', 'workaround', 'adjoint', 'linear-legacy', 'capture', 'node-hooks'] },
  { id: 'surprises', title: 'Surprises: one switch away from making sense', ids: null }, // every lesson with group 'surprises'
  { id: 'beyond', title: 'Beyond: higher order, saved tensors, training', ids: ['gradient-penalty', 'saved-tensors', 'multi-grad', 'training-loop'] },
];

const SEE = {
  'tensor-hooks': 'Three tensor hooks and retain_grad run in order; PyTorch 1.x vs 2 moves one.',
  handles: 'The same backward twice: the +2 hook, then gone after remove().',
  inplace: 'One in-place hook changes the gradient on two branches.',
  'module-forward': 'A pre-hook and a forward hook rewrite the input and the output: 116, then 6.',
  'legacy-hook': 'The legacy hook reports the last node’s two inputs for three module inputs.',
  workaround: 'Tensor hooks on a module’s inputs and output give what the legacy hook could not.',
  adjoint: 'Each layer’s full hook prints λ before and after: the adjoint recursion.',
  'linear-legacy': 'nn.Linear’s legacy hook sees AddmmBackward0’s three gradients.',
  capture: 'A forward hook and a full backward hook save one layer’s activation and gradient.',
  'node-hooks': 'Pre- and post-hooks on a backward node, and a hook after .grad is written.',
  'gradient-penalty': 'A gradient with a grad_fn, differentiated again; the hook fires in both passes.',
  'saved-tensors': 'Three packs at forward, three unpacks during backward.',
  'multi-grad': 'One hook for two tensors, in mode all and mode any.',
  'training-loop': '300 steps of training with a hook, and memory that stays flat.',
};

/** The groups with their lessons (lessons.js entries) and each lesson's one line. */
export function galleryGroups(lessons = LESSONS) {
  const placed = new Set();
  const groups = GROUPS.map((g) => {
    const items = (g.ids ? g.ids.map((id) => lessons.find((l) => l.id === id)) : lessons.filter((l) => l.group === g.id)).filter(Boolean);
    for (const l of items) placed.add(l.id);
    return { ...g, lessons: items.map((l) => ({ lesson: l, see: l.see || SEE[l.id] || l.text[0] })) };
  });
  // A lesson no group names still appears, last.
  const rest = lessons.filter((l) => !placed.has(l.id));
  if (rest.length) groups.push({ id: 'more', title: 'More', lessons: rest.map((l) => ({ lesson: l, see: l.see || SEE[l.id] || l.text[0] })) });
  return groups.filter((g) => g.lessons.length);
}
