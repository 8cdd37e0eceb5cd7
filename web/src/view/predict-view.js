// The "predict" question under the step text (model/predict.js): buttons for
// the choices; a pick says right or wrong and why, then the reader steps on.
import { h } from './dom.js';

/** Appends the question to `el` (the step text), remembering the pick per question in `picked`. */
export function renderPrediction(el, p, picked) {
  if (!p) return;
  const key = `${p.at}`;
  const box = h('div', { class: 'predict', role: 'group', 'aria-label': 'Predict' }, h('p', { class: 'predict-q' }, p.question));
  const answer = picked.get(key);
  if (answer == null) {
    box.append(h('div', { class: 'btnrow' }, p.choices.map((c, i) => h('button', { class: 'btn small mono', type: 'button',
      onclick: () => { picked.set(key, i); el.querySelector('.predict')?.replaceWith(verdict(p, i)); } }, c.text))));
    el.append(box);
  } else el.append(verdict(p, answer));
}

function verdict(p, i) {
  const right = p.choices[i].right;
  return h('div', { class: `predict ${right ? 'right' : 'wrong'}`, role: 'status' },
    h('p', { class: 'predict-q' }, `${right ? '✓ Right.' : '✗ Not quite.'} ${p.why} Step on (→) to see it fire.`));
}
