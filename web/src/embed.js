// Embed mode (embed.html#lesson=5 or #s=…&program=1): graph + player only.
import { findLesson, DEFAULT_LESSON } from './model/lessons.js';
import { decodeHash, defaultState } from './model/state.js';
import { Runner } from './runner.js';
import { buildSession } from './session.js';
import { frameAt, describeStep } from './model/trace-model.js';
import { GraphView } from './view/graph-view.js';
import { Player } from './view/player.js';
import { PLAY, PAUSE } from './view/icons.js';
import { renderCompare } from './view/compare-view.js';
import { EmbedGuest, readEmbedParams } from './embed-guest.js';

const $ = (id) => document.getElementById(id);
const d = decodeHash(location.hash);
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

const view = new GraphView($('graph'), { onSelect() {}, onToggleModule() {}, cooperative: true });
let session = null; let follow = false;
const player = new Player({
  onFrame(k, { animate }) {
    if (!session) return;
    const frame = frameAt(session.model, k);
    view.update(frame, { animate, follow });
    renderCompare($('compare'), { model: session.model, k, columns: lesson?.compare, onSelectNode: (node) => view.focusOn(view.boxOf({ node }), { force: true }) });
    $('scrub').max = String(session.model.steps.length); $('scrub').value = String(k);
    $('step-count').textContent = `${k} / ${session.model.steps.length}`;
    $('step-text').textContent = k === 0 ? 'Start: nothing has run yet.' : describeStep(session.model, frame.step);
    if (session.result.error && k === session.model.steps.length) $('step-text').textContent = `Error: ${session.result.error.message}`;
    guest.step(k, session.model.steps.length, $('step-text').textContent);
  },
  onState(p) { $('play-btn').innerHTML = p.playing ? PAUSE : PLAY; $('play-btn').setAttribute('aria-label', p.playing ? 'Pause' : 'Play'); },
});
const runner = new Runner({ pkgUrl: new URL('pkg/hookgrad.js', document.baseURI).href, wasmUrl: new URL('pkg/hookgrad_bg.wasm', document.baseURI).href });

async function run(backward = false) {
  $('run-btn').disabled = true;
  const result = await runner.run(state.program, state.semantics);
  session = await buildSession(result);
  await view.setGraph(session.model, session.input, session.layout, { legacyHandles: session.legacy });
  $('run-btn').disabled = false;
  player.load(session.model.steps.length, guest.firstStep(state.step ?? session.model.forwardEnd));
  guest.started({ total: session.model.steps.length, player, error: result.error, follow: () => { follow = true; } });
  if (lesson?.view?.module && !backward) view.focusModule(lesson.view.module);
  if (backward) player.play({ from: session.model.forwardEnd });
}
$('run-btn').onclick = () => run();
$('backward-btn').onclick = () => { follow = true; return session ? player.play({ from: session.model.forwardEnd }) : run(true); };
$('play-btn').onclick = () => { follow = true; player.toggle(); };
$('step-btn').onclick = () => { follow = true; player.step(1); };
$('back-btn').onclick = () => { follow = true; player.step(-1); };
$('scrub').oninput = (e) => { player.pause(); player.seek(Number(e.target.value)); };
$('zoom-fit').onclick = () => { follow = false; view.fit(); };
document.addEventListener('keydown', (e) => {
  if (e.target.closest('input, select, textarea')) return;
  if (['ArrowRight', 'ArrowLeft', ' '].includes(e.key)) follow = true;
  if (e.key === ' ' && !e.target.closest('button')) { e.preventDefault(); player.toggle(); }
  else if (e.key === 'ArrowRight') player.step(1);
  else if (e.key === 'ArrowLeft') player.step(-1);
});
guest.startWhenVisible($('graph'), () => run());
