// Embed mode (embed.html#lesson=5 or #s=…&program=1): graph + player only,
// driven by the same controller as the playground.
import { findLesson, DEFAULT_LESSON } from './model/lessons.js';
import { decodeHash, defaultState } from './model/state.js';
import { Controller } from './controller.js';
import { EmbedGuest, readEmbedParams } from './embed-guest.js';

const $ = (id) => document.getElementById(id);
const d = decodeHash(location.hash);
// The host page's side: height, events, step/autoplay/theme (embed-guest.js).
const guest = new EmbedGuest({ params: readEmbedParams(location.hash) });
let state;
if (d.ok && d.state) state = d.state;
else {
  const l = (d.ok && d.lesson && findLesson(d.lesson)) || findLesson(DEFAULT_LESSON);
  if (!d.ok || (d.lesson && !findLesson(d.lesson))) { $('banner').hidden = false; $('banner').textContent = `${d.error || 'Unknown lesson.'} Showing the first lesson.`; guest.error($('banner').textContent); }
  state = defaultState(l.id, l.program);
}
const lesson = state.lesson ? findLesson(state.lesson) : null;
$('embed-title').textContent = $('embed-title').title = lesson ? `hookgrad · ${lesson.n}. ${lesson.title}` : 'hookgrad';
$('open-full').href = `./playground.html${location.hash}`;
if (guest.params.program) { $('program-box').hidden = false; $('program').textContent = state.program; }

// Cooperative gestures: inside a host page, wheel and touch scroll the page
// until the reader clicks or focuses the figure (or holds Ctrl / pinches).
// (Reachable like the playground's, for the end-to-end tests.)
const ctl = globalThis.hookgradController = new Controller({
  cooperative: true, getSource: () => ({ program: state.program, semantics: state.semantics, lesson }),
  onFrame: (k, frame, c) => guest.step(k, c.session.model.steps.length, $('step-text').textContent),
  onSession: (s, c) => guest.started({ total: s.model.steps.length, player: c.player, error: s.result.error, follow: () => { c.follow = true; } }),
});
guest.startWhenVisible($('graph'), () => ctl.run({ step: guest.firstStep(state.step) }));
