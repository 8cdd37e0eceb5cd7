// Console pane: the program's console output, revealed step by step.
import { h } from './dom.js';

export function renderConsole(ol, lines, k, total) {
  const shown = lines.filter((l) => l.at <= k);
  const hidden = lines.length - shown.length;
  ol.replaceChildren(...shown.map((l) => h('li', { class: `line ${l.level} src-${l.source}` }, l.text)));
  if (hidden > 0) ol.append(h('li', { class: 'line pending' }, `… ${hidden} more line${hidden === 1 ? '' : 's'} later in the run (step forward or press Backward)`));
  if (!lines.length && k >= total) ol.append(h('li', { class: 'line pending' }, 'No console output.'));
  ol.scrollTop = ol.scrollHeight;
}
