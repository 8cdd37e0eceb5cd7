// Embed mode (embed.html#lesson=5 or #s=…&program=1): graph + player only,
// driven by the same controller as the playground.
import { findLesson, DEFAULT_LESSON } from './model/lessons.js';
import { decodeHash, defaultState } from './model/state.js';
import { Controller } from './controller.js';
import { EmbedGuest, readEmbedParams } from './embed-guest.js';
import { isBuiltInScenario } from './model/trust.js';

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
const ctl = new Controller({
  cooperative: true, getSource: () => ({ program: state.program, semantics: state.semantics, lesson }),
  onFrame: (k, frame, c) => guest.step(k, c.session.model.steps.length, $('step-text').textContent),
  onSession: (s, c) => guest.started({ total: s.model.steps.length, player: c.player, error: s.result.error, follow: () => { c.follow = true; } }),
});

/**
 * A page of this site framing the embed (a tutorial's figure of its own
 * code cell) chose the program itself: it runs at once. Anywhere else a
 * scenario's program came from whoever wrote the link or the blog post.
 */
function framedBySite() {
  try { return window.parent !== window && window.parent.location.origin === location.origin; } catch { return false; }
}
const start = () => ctl.run({ step: guest.firstStep(state.step) });
if (!d.ok || !d.state || isBuiltInScenario(state) || framedBySite()) guest.startWhenVisible($('graph'), start);
else {
  // Shown, not run: the reader presses "Run this program" (or Run).
  $('link-gate').hidden = false;
  $('step-text').textContent = 'This figure’s program has not run yet.';
  $('link-gate-run').onclick = () => { $('link-gate').hidden = true; start(); };
  $('run-btn').addEventListener('click', () => { $('link-gate').hidden = true; }, { once: true });
  $('program-box').hidden = false; $('program').textContent = state.program; // to read before running it
}
