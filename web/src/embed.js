// Embed mode (embed.html#lesson=5 or #s=…&program=1): graph + player only,
// driven by the same controller as the playground.
import { findLesson, DEFAULT_LESSON } from './model/lessons.js';
import { decodeHash, defaultState } from './model/state.js';
import { Controller } from './controller.js';
import { earlyRunner } from './early-runner.js';
import { EmbedGuest, readEmbedParams } from './embed-guest.js';
import { isBuiltInScenario } from './model/trust.js';
import { programOf, lessonLang, figureSource } from './model/lang.js';
import { lessonProse } from './model/lesson-prose.js';
import { renderTimeline } from './view/timeline-view.js';

const $ = (id) => document.getElementById(id);
const d = decodeHash(location.hash);
// The host page's side: height, events, step/autoplay/theme (embed-guest.js).
const guest = new EmbedGuest({ params: readEmbedParams(location.hash) });
let state;
if (d.ok && d.state) state = d.state;
else {
  const l = (d.ok && d.lesson && findLesson(d.lesson)) || findLesson(DEFAULT_LESSON);
  if (!d.ok || (d.lesson && !findLesson(d.lesson))) { $('banner').hidden = false; $('banner').textContent = `${d.error || 'Unknown lesson.'} Showing the first lesson.`; guest.error($('banner').textContent); }
  const lang = lessonLang(l, d.ok ? d.lang : 'js');
  state = defaultState(l.id, programOf(l, lang), lang);
}
const lesson = state.lesson ? findLesson(state.lesson) : null;
// "Python" before the lesson's title: a narrow frame cuts the title's end.
const brand = state.lang === 'python' ? 'hookgrad · Python' : 'hookgrad';
$('embed-title').textContent = $('embed-title').title = lesson ? `${brand} · ${lesson.n}. ${lessonProse(lesson, state.lang).title}` : brand;
$('open-full').href = `./playground.html${location.hash}`;
if (guest.params.program) { $('program-box').hidden = false; $('program').textContent = state.program; }
// #timeline=1 (the element's `timeline` attribute): the hook timeline under the player.
const timelineBox = guest.params.timeline ? document.createElement('section') : null;
if (timelineBox) {
  timelineBox.className = 'embed-timeline'; timelineBox.setAttribute('aria-label', 'Hook timeline');
  timelineBox.innerHTML = '<div id="timeline" class="timeline"></div>';
  document.querySelector('.embed-foot').after(timelineBox);
}

// Cooperative gestures: inside a host page, wheel and touch scroll the page
// until the reader clicks or focuses the figure (or holds Ctrl / pinches).
// Python (language="python" / #lang=python): a lesson's figure comes at once
// from its JS twin (model/lang.js); Python loads after that first paint, and
// the Python itself then runs at the step the reader is at.
let pythonReady = false; let pythonAsked = false;
function preparePython(c) {
  if (pythonAsked) return;
  pythonAsked = true;
  c.runner.preparePython().then((r) => {
    pythonReady = r.ok;
    if (r.ok && c.session?.twin) c.run({ step: c.player.k });
  });
}
/** While a run waits for Python: what is loading, in the step text. */
function showPythonProgress(p) {
  if (pythonReady || p.stage === 'ready' || (ctl.session && !ctl.busy)) return;
  const mb = (x) => (x / 1048576).toFixed(1);
  $('step-text').textContent = p.stage === 'download' ? `Loading ${p.text}: ${mb(p.loaded)}${p.total ? ` / ${mb(p.total)}` : ''} MB…` : `Starting ${p.text}…`;
}
// (Reachable like the playground's, for the end-to-end tests.)
const ctl = globalThis.hookgradController = new Controller({
  runner: earlyRunner(), // started by embed-boot.js before this module loaded
  cooperative: true, getSource: () => figureSource(state, { pythonReady }),
  onProgress: (p) => showPythonProgress(p),
  onFrame: (k, frame, c) => {
    if (timelineBox) renderTimeline($('timeline'), c.session.model, k, { onSeek: (to) => { c.follow = true; c.player.pause(); c.player.seek(to); } });
    guest.step(k, c.session.model.steps.length, $('step-text').textContent);
  },
  onSession: (s, c) => {
    guest.started({ total: s.model.steps.length, player: c.player, error: s.result.error, follow: () => { c.follow = true; } });
    if (state.lang === 'python') preparePython(c);
  },
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
