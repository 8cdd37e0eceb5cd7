// Wires the page: state ↔ URL, editor, runner, graph view, player, inspector.
import { LESSONS, DEFAULT_LESSON, findLesson } from './model/lessons.js';
import { decodeHash, encodeState, defaultState, MAX_HASH } from './model/state.js';
import { Runner } from './runner.js';
import { buildSession, relayout } from './session.js';
import { frameAt, describeStep } from './model/trace-model.js';
import { GraphView } from './view/graph-view.js';
import { Player } from './view/player.js';
import { PLAY, PAUSE } from './view/icons.js';
import { renderInspector } from './view/inspector.js';
import { renderConsole } from './view/console-view.js';
import { renderCompare } from './view/compare-view.js';
import { h, richText } from './view/dom.js';
import * as PE from './model/program-edit.js';

const $ = (id) => document.getElementById(id);
// First of all, the program worker and the engine's wasm: they are on the way
// to the first graph. CodeMirror (editor.js) is loaded on the side.
const runner = new Runner({ pkgUrl: new URL('pkg/hookgrad.js', document.baseURI).href, wasmUrl: new URL('pkg/hookgrad_bg.wasm', document.baseURI).href });
const editorModule = import('./view/editor.js');
const app = { follow: false, state: null, session: null, dirty: true, selected: {}, collapsed: new Set(), running: null, frame: null, blockEditor: null };

// ---- lessons ----
for (const l of LESSONS) $('lesson-select').append(h('option', { value: l.id }, `${l.n}. ${l.title}`));
$('lesson-select').append(h('option', { value: '' }, 'Your own program'));
for (const l of LESSONS) {
  $('gallery-list').append(h('li', {}, h('button', { class: `card${l.flagship ? ' flagship' : ''}`, type: 'button', 'aria-label': `Open lesson ${l.n}: ${l.title}`, onclick: () => { $('gallery').close(); banner(''); openLesson(l.id); } },
    h('span', { class: 'card-n' }, String(l.n)), h('strong', {}, l.title), h('span', { class: 'card-text' }, l.text[0]))));
}
$('gallery-btn').onclick = () => $('gallery').showModal();
$('gallery-close').onclick = () => $('gallery').close();
$('lesson-select').onchange = (e) => {
  banner('');
  if (e.target.value) openLesson(e.target.value);
  else { app.state.lesson = null; showLessonText(); saveHash(); } // keep the program, drop the lesson text
};

function showLessonText() {
  const l = app.state.lesson ? findLesson(app.state.lesson) : null;
  $('lesson-title').textContent = l ? `${l.n}. ${l.title}` : 'Your own program';
  $('lesson-text').replaceChildren(...(l ? l.text : ['Edit the program, or use the inspector to change the graph and its hooks. Run, then Backward.']).map(richText));
  $('lesson-select').value = l ? l.id : '';
  $('reset-program').hidden = !l;
  document.querySelector('.lesson-pane').classList.toggle('flagship', !!l?.compare);
}

function openLesson(id, { run = true } = {}) {
  const l = findLesson(id) || findLesson(DEFAULT_LESSON);
  app.state = { ...defaultState(l.id, l.program), semantics: app.state?.semantics || 'pytorch-2' };
  app.selected = {}; app.collapsed = new Set();
  editor.set(l.program); showLessonText(); syncSemantics(); saveHash();
  if (run) runProgram();
}

// ---- banner ----
function banner(msg) { $('banner').hidden = !msg; $('banner').textContent = msg || ''; }

// ---- editor ----
let editTimer = null;
// The program editor, created when CodeMirror has loaded; until then set() keeps the text.
let editorText = ''; let editorView = null;
const editor = {
  set(text) { editorText = text; editorView?.set(text); },
  get text() { return editorView ? editorView.text : editorText; },
  focus() { editorView?.focus(); },
};
editorModule.then(({ createEditor }) => {
  editorView = createEditor($('editor'), {
    doc: editorText,
    onRun: () => runProgram(),
    onChange(text) {
      editorText = text; app.state.program = text; app.dirty = true;
      $('program-status').textContent = 'edited — Run to apply';
      clearTimeout(editTimer); editTimer = setTimeout(saveHash, 400);
    },
  });
}, (e) => banner(`The program editor could not be loaded (${e?.message || e}). Reload the page to try again.`));
$('reset-program').onclick = () => openLesson(app.state.lesson);

/** A graph/hook edit from the inspector: rewrite the program, then run it. */
function setProgram(text) {
  if (app.state.lesson && text !== findLesson(app.state.lesson)?.program) { /* still the lesson, edited */ }
  app.state.program = text; editor.set(text); saveHash(); runProgram({ backward: true });
}

// ---- semantics ----
function syncSemantics() { for (const r of document.querySelectorAll('input[name=semantics]')) r.checked = r.value === app.state.semantics; }
for (const r of document.querySelectorAll('input[name=semantics]')) {
  r.onchange = () => { app.state.semantics = r.value; saveHash(); if (app.session) runProgram({ backward: true }); };
}

// ---- URL ----
function saveHash() {
  const hash = encodeState({ ...app.state, step: app.session ? player.k : null });
  if (hash.length <= MAX_HASH) history.replaceState(null, '', hash);
}
$('copy-link').onclick = async () => {
  saveHash();
  try { await navigator.clipboard.writeText(location.href); $('copy-link').textContent = 'Link copied'; } catch { prompt('Copy this link:', location.href); }
  setTimeout(() => { $('copy-link').textContent = 'Copy link'; }, 1800);
};

// ---- running ----
const view = new GraphView($('graph'), {
  onSelect(sel) { app.selected = sel; renderFrame(player.k); view.focusOn(view.boxOf(sel), { minK: 0.6 }); },
  async onToggleModule(key) {
    if (app.collapsed.has(key)) app.collapsed.delete(key); else app.collapsed.add(key);
    app.session = await relayout(app.session, app.collapsed); if (await drawGraph()) renderFrame(player.k);
  },
});
$('graph').addEventListener('click', () => { if (app.selected.tensor != null || app.selected.node != null) { app.selected = {}; renderFrame(player.k); } });
$('zoom-in').onclick = () => view.zoomBy(1.25);
$('zoom-out').onclick = () => view.zoomBy(0.8);
$('zoom-fit').onclick = () => { app.follow = false; view.fit(); };

function setBusy(b) { document.body.classList.toggle('busy', b); $('run-btn').disabled = b; $('backward-btn').disabled = b; $('run-btn').textContent = b ? 'Running…' : 'Run'; }

async function runProgram({ backward = false, step = null } = {}) {
  player.pause(); setBusy(true); app.follow = backward;
  const myRun = Symbol('run'); app.running = myRun;
  const result = await runner.run(app.state.program, app.state.semantics);
  if (app.running !== myRun) return;
  const session = await buildSession(result, { collapsed: app.collapsed });
  app.session = session; app.dirty = false;
  $('program-status').textContent = result.error ? 'error' : `ran in ${Math.round(result.ms || 0)} ms`;
  if (!(await drawGraph()) || app.running !== myRun) return;
  const { model } = session;
  player.load(model.steps.length, step ?? model.forwardEnd);
  setBusy(false);
  const lesson = app.state.lesson ? findLesson(app.state.lesson) : null;
  if (lesson?.view?.module && !backward) view.focusModule(lesson.view.module);
  if (result.error && !model.steps.length) $('step-text').textContent = result.error.message;
  if (backward) player.play({ from: model.forwardEnd });
}

async function drawGraph() {
  const { model, input, layout, legacy } = app.session;
  const empty = !model.tensors.size && !model.nodes.size;
  $('graph-empty').hidden = !empty;
  $('graph-empty').textContent = empty ? (app.session.result.error?.message || 'The program created no tensors.') : '';
  $('graph-empty').classList.toggle('is-error', empty && !!app.session.result.error);
  return view.setGraph(model, input, layout, { legacyHandles: legacy });
}

$('run-btn').onclick = () => runProgram();
$('backward-btn').onclick = async () => {
  app.follow = true;
  if (!app.session || app.dirty) await runProgram({ backward: true });
  else player.play({ from: player.k >= app.session.model.steps.length || player.k < app.session.model.forwardEnd ? app.session.model.forwardEnd : player.k });
};

// ---- player ----
const player = new Player({
  onFrame: (k, { animate }) => renderFrame(k, animate),
  onState(p) {
    $('play-btn').innerHTML = p.playing ? PAUSE : PLAY;
    $('play-btn').setAttribute('aria-label', p.playing ? 'Pause' : 'Play');
  },
});
$('play-btn').onclick = () => { app.follow = true; player.toggle(); };
$('step-btn').onclick = () => { app.follow = true; player.step(1); };
$('back-btn').onclick = () => { app.follow = true; player.step(-1); };
$('scrub').oninput = (e) => { player.pause(); player.seek(Number(e.target.value)); };
$('speed').onchange = (e) => player.setSpeed(Number(e.target.value));
let hashTimer = null;

function renderFrame(k, animate = false) {
  if (!app.session) return;
  const { model, lines } = app.session;
  const frame = frameAt(model, k); app.frame = frame;
  view.update(frame, { selected: app.selected, animate, follow: app.follow });
  $('scrub').max = String(model.steps.length); $('scrub').value = String(k);
  $('scrub').setAttribute('aria-valuetext', `step ${k} of ${model.steps.length}`);
  $('step-count').textContent = `${k} / ${model.steps.length}`;
  const err = app.session.result.error;
  $('step-text').textContent = k === 0 ? 'Start: nothing has run yet.' : describeStep(model, frame.step);
  if (k === model.forwardEnd && k < model.steps.length) $('step-text').textContent = `Forward pass recorded: ${model.tensors.size} tensors, ${model.nodes.size} backward nodes. Press Backward (or →) to run the backward pass.`;
  if (err && k === model.steps.length) $('step-text').textContent = `Error: ${err.message}`;
  $('step-text').classList.toggle('is-error', frame.step?.event.type === 'error' || (!!err && k === model.steps.length));
  renderConsole($('console'), lines, k, model.steps.length);
  const lesson = app.state.lesson ? findLesson(app.state.lesson) : null;
  renderCompare($('compare'), { model, k, columns: lesson?.compare, warnRoot: $('compare-warning'), onSelectNode: (node) => { app.selected = { node }; renderFrame(player.k); view.focusOn(view.boxOf({ node }), { force: true }); } });
  const formsKey = [app.session.result, app.selected.tensor, app.selected.node, app.state.program];
  const stale = !app.formsKey || formsKey.some((x, i) => x !== app.formsKey[i]);
  if (stale) app.formsKey = formsKey;
  renderInspector($('inspector'), { session: app.session, frame, selected: app.selected, program: app.state.program, onProgram: setProgram, onEditBlock: editBlock, formsRoot: stale ? $('inspector-forms') : null });
  clearTimeout(hashTimer); hashTimer = setTimeout(saveHash, 300);
}

/** Opens a CodeMirror editor for a hook block inside the inspector. */
async function editBlock(block) {
  const { createEditor } = await editorModule;
  const box = h('div', { class: 'block-editor', role: 'dialog', 'aria-label': `Edit hook ${block.id}` });
  const ed = createEditor(box, { doc: block.inner.join('\n'), label: `Code of hook ${block.id}` });
  const close = () => box.remove();
  box.append(h('div', { class: 'btnrow' },
    h('button', { class: 'btn small primary', type: 'button', onclick: () => { close(); setProgram(PE.setBlockCode(app.state.program, block.id, ed.text)); } }, 'Save hook'),
    h('button', { class: 'btn small', type: 'button', onclick: close }, 'Cancel')));
  $('hook-editor').replaceChildren(box); ed.focus();
}

// ---- keyboard ----
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && !e.target.closest('.cm-editor, dialog') && (app.selected.tensor != null || app.selected.node != null)) {
    app.selected = {}; renderFrame(player.k); return;
  }
  if (e.target.closest('.cm-editor, input, select, textarea, dialog') || e.altKey || e.ctrlKey || e.metaKey) return;
  if (['ArrowRight', 'ArrowLeft', ' '].includes(e.key)) app.follow = true;
  if (e.key === ' ' && !e.target.closest('button, [role=button]')) { e.preventDefault(); player.toggle(); }
  else if (e.key === 'ArrowRight') { e.preventDefault(); player.step(1); }
  else if (e.key === 'ArrowLeft') { e.preventDefault(); player.step(-1); }
  else if (e.key === 'End') { e.preventDefault(); player.pause(); player.seek(player.total); }
  else if (e.key === 'Home') { e.preventDefault(); player.pause(); player.seek(0); }
});

// ---- start ----
function start() {
  const d = decodeHash(location.hash);
  if (!d.ok) { banner(`${d.error} Opening the first lesson instead.`); openLesson(DEFAULT_LESSON); return; }
  if (d.state) {
    app.state = d.state; editor.set(d.state.program); showLessonText(); syncSemantics();
    runProgram({ step: d.state.step });
  } else if (d.lesson && !findLesson(d.lesson)) { banner('This link names a lesson that does not exist. Opening the first lesson instead.'); openLesson(DEFAULT_LESSON); }
  else openLesson(d.lesson || DEFAULT_LESSON);
}
// replaceState does not fire hashchange: this only runs for links the user follows.
window.addEventListener('hashchange', () => start());
start();
