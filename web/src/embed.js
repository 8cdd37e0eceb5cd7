// Embed mode (embed.html#lesson=5 or #s=…&program=1): graph + player only,
// driven by the same controller as the playground.
import { findLesson, DEFAULT_LESSON } from './model/lessons.js';
import { decodeHash, defaultState } from './model/state.js';
import { Controller } from './controller.js';

const $ = (id) => document.getElementById(id);
const d = decodeHash(location.hash);
let state;
if (d.ok && d.state) state = d.state;
else {
  const l = (d.ok && d.lesson && findLesson(d.lesson)) || findLesson(DEFAULT_LESSON);
  if (!d.ok || (d.lesson && !findLesson(d.lesson))) { $('banner').hidden = false; $('banner').textContent = `${d.error || 'Unknown lesson.'} Showing the first lesson.`; }
  state = defaultState(l.id, l.program);
}
const lesson = state.lesson ? findLesson(state.lesson) : null;
$('embed-title').textContent = lesson ? `hookgrad · ${lesson.n}. ${lesson.title}` : 'hookgrad';
$('open-full').href = `./playground.html${location.hash}`;
if (new URLSearchParams(location.hash.slice(1)).get('program') === '1') { $('program-box').hidden = false; $('program').textContent = state.program; }

// Cooperative gestures: inside a host page, wheel and touch scroll the page
// until the reader clicks or focuses the figure (or holds Ctrl / pinches).
const ctl = new Controller({ cooperative: true, getSource: () => ({ program: state.program, semantics: state.semantics, lesson }) });
ctl.run({ step: state.step });
