// A surprise lesson's switch (model/lesson-switch.js) in the lesson pane:
// two buttons, the program as written and with the one thing flipped, and
// under them the two runs side by side — hooks fired, .grad, warnings and
// error, each read from the engine's run of that side.
import { h } from './dom.js';

/**
 * root: the box under the lesson text. lesson: a lessons.js entry with `switch`, or null.
 * side: 'off' | 'on' | null (the program shown was edited beyond the switch).
 * runs: { off?, on? } summaries (runSummary). onFlip(side): the reader picked a side.
 */
export function renderSwitch(root, { lesson, side, runs, onFlip, lang = 'js' }) {
  if (!lesson?.switch) { root.replaceChildren(); root.hidden = true; return; }
  root.hidden = false;
  const sw = lang === 'python' ? lesson.switch : { off: lesson.switch.offJs ?? lesson.switch.off, on: lesson.switch.onJs ?? lesson.switch.on };
  const button = (s, text) => h('button', {
    class: `btn small sw-side${side === s ? ' on' : ''}`, type: 'button', 'aria-pressed': side === s ? 'true' : 'false',
    onclick: () => { if (side !== s) onFlip(s); },
  }, text);
  const col = (s, title) => {
    const r = runs[s];
    const list = (items, empty) => (items.length ? h('ol', {}, items.map((t) => h('li', {}, t))) : h('p', { class: 'muted' }, empty));
    return h('div', { class: `sw-col${side === s ? ' current' : ''}` },
      h('h3', {}, title, ' ', h('code', {}, s === 'off' ? sw.off : sw.on)),
      // (h() flattens one level of children: each part is one flat list.)
      ...(r ? [
        h('h4', {}, 'Hooks and .grad writes, in order'), list(r.hooks, 'none'),
        h('h4', {}, '.grad at the end'), list(r.grads, 'no leaf requires grad'),
        ...(r.warnings.length ? [h('h4', {}, 'PyTorch warns'), list(r.warnings.map((w) => (w.length > 90 ? `${w.slice(0, 90)}…` : w)), '')] : []),
        ...(r.error ? [h('h4', {}, 'Error'), h('p', { class: 'sw-error' }, r.error)] : []),
      ] : [h('p', { class: 'muted' }, s === 'on' ? 'Flip the switch to run this side.' : 'Flip back to run this side.')]));
  };
  root.replaceChildren(
    h('div', { class: 'sw-row', role: 'group', 'aria-label': 'The switch: flip the one thing and run again' },
      h('strong', {}, 'The switch:'), button('off', sw.off), h('span', { class: 'muted', 'aria-hidden': 'true' }, '↔'), button('on', sw.on),
      side == null ? h('span', { class: 'muted small' }, '(the program was edited: Reset lesson to use the switch)') : null),
    h('div', { class: 'sw-cols', 'aria-label': 'Before and after the switch' }, col('off', 'As written:'), col('on', 'Switched:')),
  );
}
