// Wires the playground page on top of the shared controller (controller.js):
// lessons, state ↔ URL, the program editor, inspector and console.
import { LESSONS, DEFAULT_LESSON, findLesson } from './model/lessons.js';
import { decodeHash, encodeState, defaultState, MAX_HASH } from './model/state.js';
import { Controller } from './controller.js';
import { stepSource } from './model/trace-model.js';
import { renderInspector } from './view/inspector.js';
import { renderConsole } from './view/console-view.js';
import { h, richText } from './view/dom.js';
import * as PE from './model/program-edit.js';
import { isBuiltInScenario } from './model/trust.js';
import { programOf, lessonLang, figureSource } from './model/lang.js';
import { lessonProse } from './model/lesson-prose.js';
import { renderTimeline } from './view/timeline-view.js';
import { isMarkEvent } from './model/timeline.js';
import { renderSwitch } from './view/switch-view.js';
import { galleryGroups } from './model/gallery.js';
import { flipSwitch, switchSide, runSummary } from './model/lesson-switch.js';
import { earlyRunner } from './early-runner.js';

const $ = (id) => document.getElementById(id);
// bench/first-graph.mjs reads the 'hookgrad:*' marks along the path to the first graph.
performance.mark?.('hookgrad:main');
// CodeMirror (editor.js, ~300 KB of script and 200+ ms of main-thread work
// on a loaded 2-core machine) is not on the way to the first graph: it is
// imported once the first graph is drawn (or the page decided not to run:
// a program from a link), so it does not compete with the run, the layout
// and the draw for the main thread (bench/PROFILE.md, "First graph").
let startEditor;
const editorWanted = new Promise((resolve) => { startEditor = resolve; });
// However the first run goes, the editor comes: at the latest after 3 s.
setTimeout(() => startEditor(), 3000);
const editorModule = editorWanted.then(() => import('./view/editor.js'));
const app = { state: null, formsKey: null };

// ---- lessons ----
for (const l of LESSONS) $('lesson-select').append(h('option', { value: l.id }, `${l.n}. ${l.title}`));
$('lesson-select').append(h('option', { value: '' }, 'Your own program'));
// The gallery, grouped (model/gallery.js), each card with one line of what the lesson shows.
for (const g of galleryGroups()) {
  $('gallery-list').append(h('li', { class: 'gallery-group' }, h('h3', { id: `gallery-${g.id}` }, g.title),
    h('ol', { class: 'cards', 'aria-labelledby': `gallery-${g.id}` }, g.lessons.map(({ lesson: l, see }) => h('li', {}, h('button', { class: `card${l.flagship ? ' flagship' : ''}`, type: 'button', 'aria-label': `Open lesson ${l.n}: ${l.title}`, onclick: () => { $('gallery').close(); banner(''); openLesson(l.id); } },
      h('span', { class: 'card-n' }, String(l.n)), h('strong', {}, l.title), h('span', { class: 'card-text' }, see)))))));
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
  // A Python reader reads PyTorch's names (model/lesson-prose.js).
  const prose = l ? lessonProse(l, app.state.lang) : null;
  $('lesson-title').textContent = l ? `${l.n}. ${prose.title}` : 'Your own program';
  $('lesson-text').replaceChildren(...(l ? prose.text : ['Edit the program, or use the inspector to change the graph and its hooks. Run, then Backward.']).map(richText));
  for (const o of $('lesson-select').options) { const ol = o.value && findLesson(o.value); if (ol) o.textContent = `${ol.n}. ${lessonProse(ol, app.state.lang).title}`; }
  $('lesson-select').value = l ? l.id : '';
  $('reset-program').hidden = !l;
  document.querySelector('.lesson-pane').classList.toggle('flagship', !!l?.compare);
  document.querySelector('.lesson-pane').classList.toggle('has-switch', !!l?.switch);
  showSwitch();
}

// ---- a surprise lesson's switch: flip the one thing, run again, compare ----
/** The runs of each side of the current lesson's switch, in the current language. */
let switchRuns = { key: null, off: null, on: null };
function switchPair() {
  const l = app.state.lesson ? findLesson(app.state.lesson) : null;
  return l?.switch ? { l, pair: app.state.lang === 'python' ? l.switch.python : l.switch.js } : null;
}
function showSwitch() {
  const s = switchPair();
  const key = s ? `${s.l.id} ${app.state.lang} ${app.state.semantics}` : null;
  if (switchRuns.key !== key) switchRuns = { key, off: null, on: null };
  renderSwitch($('lesson-switch'), {
    lesson: s?.l ?? null, side: s ? switchSide(app.state.program, s.pair) : null, runs: switchRuns, lang: app.state.lang,
    onFlip(to) {
      const program = flipSwitch(app.state.program, s.pair, to === 'off');
      app.state.program = program; editor.set(program); saveHash();
      showSwitch(); runProgram({ backward: true });
    },
  });
}
/** After a run of a switch lesson: that side's summary, from the engine's run. */
function recordSwitchRun(session) {
  const s = switchPair(); if (!s || session.twin) { showSwitch(); return; }
  const side = switchSide(app.state.program, s.pair);
  showSwitch();
  if (side && !session.result.stopped && !session.result.timedOut) { switchRuns[side] = runSummary(session.model, session.result.error); showSwitch(); }
}

function openLesson(id, { run = true, lang = app.state?.lang || 'js' } = {}) {
  const l = findLesson(id) || findLesson(DEFAULT_LESSON);
  const use = lessonLang(l, lang);
  app.state = { ...defaultState(l.id, programOf(l, use), use), semantics: app.state?.semantics || 'pytorch-2' };
  ctl.selected = {}; ctl.collapsed = new Set();
  editor.set(app.state.program); showLessonText(); syncSemantics(); syncLang(); saveHash();
  if (run) runProgram();
}

// ---- language: JavaScript | Python ----
function syncLang() {
  for (const r of document.querySelectorAll('input[name=lang]')) r.checked = r.value === app.state.lang;
  editorView?.setLanguage(app.state.lang);
  document.body.dataset.lang = app.state.lang;
  if (app.state.lang === 'python') preparePython();
  else $('py-status').hidden = true; // a JavaScript program waits for no interpreter
}
for (const r of document.querySelectorAll('input[name=lang]')) {
  r.onchange = () => {
    const l = app.state.lesson ? findLesson(app.state.lesson) : null;
    // A lesson shows its program in the other language; the reader's own text stays as it is.
    if (l && app.state.program === programOf(l, app.state.lang)) openLesson(l.id, { lang: r.value });
    else { app.state.lang = r.value; syncLang(); showLessonText(); saveHash(); }
  };
}

/** Python loads after first paint, when the reader picks it: a progress line says what and how far. */
let pythonReady = false; let pythonLoading = null;
function preparePython() {
  if (pythonReady || pythonLoading) return pythonLoading;
  pythonLoading = ctl.runner.preparePython().then((r) => {
    pythonLoading = null; pythonReady = r.ok;
    // The figure came from the lesson's JavaScript twin meanwhile: now run the Python itself (PyTorch's printed lines).
    if (r.ok && ctl.session?.twin && app.state.lang === 'python') runProgram({ step: ctl.player.k });
    return r;
  });
  return pythonLoading;
}
function showPythonProgress(p) {
  const box = $('py-status');
  if (pythonReady || p.stage === 'ready' || app.state.lang !== 'python') { box.hidden = true; return; }
  box.hidden = false;
  const mb = (x) => (x / 1048576).toFixed(1);
  $('py-status-text').textContent = p.stage === 'download'
    ? `Loading ${p.text}: ${mb(p.loaded)}${p.total ? ` / ${mb(p.total)}` : ''} MB`
    : `Starting ${p.text}…`;
  const bar = $('py-progress');
  if (p.stage === 'download' && p.total) { bar.max = p.total; bar.value = Math.min(p.loaded, p.total); } else bar.removeAttribute('value');
}

// ---- the hook timeline: open where the window is tall enough to keep the figure's detail, or as the reader left it ----
{
  const box = $('timeline-box'); let saved = null;
  try { saved = localStorage.getItem('hookgrad.timeline'); } catch { /* storage refused (a sandboxed frame) */ }
  box.open = saved ? saved === 'open' : window.innerHeight >= 900;
  // Only the reader's own click is kept (the line above toggles it too): it becomes what the box will be.
  box.querySelector('summary').addEventListener('click', () => { try { localStorage.setItem('hookgrad.timeline', box.open ? 'closed' : 'open'); } catch { /* not kept */ } });
  box.addEventListener('toggle', () => { if (ctl.session) showTimeline(ctl.player.k); });
}
/** Draws the timeline at step k while it is open (a closed one costs a big run nothing); its summary counts the marks. */
function showTimeline(k) {
  const { model } = ctl.session;
  if ($('timeline-box').open) renderTimeline($('timeline'), model, k, { onSeek: (to) => { ctl.follow = true; ctl.player.pause(); ctl.player.seek(to); } });
  if (app.countOf !== model) {
    app.countOf = model;
    const base = model.figureStart || 0;
    const n = model.steps.reduce((c, s, i) => c + (i >= base && isMarkEvent(s.event) ? 1 : 0), 0);
    $('timeline-count').textContent = `${n} hook firing${n === 1 ? '' : 's'} and .grad write${n === 1 ? '' : 's'}, in the order the engine ran them`;
  }
}

// ---- banner ----
function banner(msg) { $('banner').hidden = !msg; $('banner').textContent = msg || ''; }

// ---- editor ----
let editTimer = null;
// The program editor, created when CodeMirror has loaded; until then set() keeps the text.
let editorText = ''; let editorView = null; let editorMounting = false;
const editor = {
  // Until CodeMirror is in, the program shows as plain text beside the first figure.
  set(text) {
    editorText = text;
    if (editorView) editorView.set(text);
    else if (!editorMounting) $('editor').replaceChildren(h('pre', { class: 'editor-plain' }, text));
  },
  get text() { return editorView ? editorView.text : editorText; },
  focus() { editorView?.focus(); },
};
// Created in tasks of their own, after CodeMirror's modules were evaluated:
// together they made one main-thread task of 100+ ms on a slow machine.
const afterTask = () => new Promise((resolve) => setTimeout(resolve));
editorModule.then(async ({ createEditorInTasks }) => {
  await afterTask();
  editorMounting = true;
  $('editor').replaceChildren(); // the plain text gives way to the editor
  editorView = await createEditorInTasks($('editor'), {
    doc: editorText,
    language: app.state?.lang || 'js',
    onRun: () => runProgram(),
    onChange(text) {
      editorText = text; app.state.program = text; ctl.dirty = true;
      $('program-status').textContent = 'edited — Run to apply';
      clearTimeout(editTimer); editTimer = setTimeout(saveHash, 400);
    },
  });
  editorView.set(editorText); // a lesson opened between the two tasks
  editorView.setLanguage(app.state?.lang || 'js');
  // A run that failed before the editor existed (a fast error on a slow
  // machine) still gets its marker.
  markRunError(ctl.session?.result?.error);
}, (e) => banner(`The program editor could not be loaded (${e?.message || e}). Reload the page to try again.`));
$('reset-program').onclick = () => openLesson(app.state.lesson);

/** A graph/hook edit from the inspector: rewrite the program, then run it. */
function setProgram(text) {
  const changed = PE.changedLineRange(app.state.program || '', text);
  app.state.program = text; editor.set(text); saveHash();
  // Show the reader what the inspector wrote into the program.
  if (changed) editorView?.markInserted(changed.from, changed.to);
  runProgram({ backward: true });
}

// ---- semantics ----
function syncSemantics() { for (const r of document.querySelectorAll('input[name=semantics]')) r.checked = r.value === app.state.semantics; }
for (const r of document.querySelectorAll('input[name=semantics]')) {
  r.onchange = () => { app.state.semantics = r.value; saveHash(); if (ctl.session) runProgram({ backward: true }); };
}

// ---- URL ----
function saveHash() {
  const hash = encodeState({ ...app.state, step: ctl.session ? ctl.player.k : null });
  if (hash.length <= MAX_HASH) history.replaceState(null, '', hash);
}
$('copy-link').onclick = async () => {
  saveHash();
  try { await navigator.clipboard.writeText(location.href); $('copy-link').textContent = 'Link copied'; } catch { prompt('Copy this link:', location.href); }
  setTimeout(() => { $('copy-link').textContent = 'Copy link'; }, 1800);
};

// ---- running: the shared controller (run → graph → player → step text) ----
const ctl = globalThis.hookgradController = new Controller({
  runner: earlyRunner(), // started by boot.js while this page's modules loaded
  // A lesson's Python before Python is ready: the figure comes from its JavaScript twin (model/lang.js).
  getSource: () => figureSource(app.state, { pythonReady }),
  onProgress: showPythonProgress,
  onFrame: renderExtras,
  onBusy: (busy) => { if (busy) { dropLinkGate(); $('program-status').textContent = 'running…'; } },
  onSession(session) {
    const r = session.result; const e = r.error;
    $('program-status').textContent = session.twin ? 'figure from the JavaScript twin — Python is loading'
      : r.stopped ? 'stopped' : r.timedOut ? 'stopped (too long)' : e ? `error${e.line != null ? ` at line ${e.line}` : ''}` : `ran in ${Math.round(r.ms || 0)} ms`;
    markRunError(e);
    recordSwitchRun(session);
    startEditor(); // the first graph is on screen: now the editor
  },
});
const runProgram = (opts) => ctl.run(opts);
/** The error's place, marked in the editor (cleared by the next edit or a clean run). */
function markRunError(e) { editorView?.markError(e?.line ?? null, e?.column ?? null, e?.message || ''); }
let hashTimer = null;

/** The playground's own parts of a frame: console, inspector, URL. */
function renderExtras(k, frame) {
  const { session } = ctl;
  renderConsole($('console'), session.lines, k, session.model.steps.length);
  // The hook timeline: the player's step is its cursor, a mark steps the player there.
  showTimeline(k);
  const formsKey = [session.result, ctl.selected.tensor, ctl.selected.node, app.state.program];
  const stale = !app.formsKey || formsKey.some((x, i) => x !== app.formsKey[i]);
  if (stale) app.formsKey = formsKey;
  renderInspector($('inspector'), { session, frame, selected: ctl.selected, program: app.state.program, onProgram: setProgram, onEditBlock: editBlock, formsRoot: stale ? $('inspector-forms') : null });
  // The line that registered the hook now firing is marked in the program.
  const src = stepSource(session.model, frame.step);
  if (!ctl.dirty) editorView?.markStep(src?.line ?? null, src ? `step ${k}: ${frame.step.label}` : '');
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
  $('hook-editor').replaceChildren(box);
  box.scrollIntoView({ block: 'nearest' }); ed.focus();
}

// ---- a program from a link waits for the reader ----
/** Shows the linked program without running it, and a "Run this program" button (model/trust.js says why). */
function holdLinkedProgram(step) {
  // A link followed in this tab: the last program's graph and console would
  // still show under the gate, as if they were this program's. Start clean.
  if (ctl.session || ctl.busy) { location.reload(); return; }
  const gate = $('link-gate');
  gate.hidden = false;
  $('program-status').textContent = 'from a link — not run yet';
  $('step-text').textContent = 'This program came with the link and has not run. Read it, then press “Run this program”.';
  const go = () => { gate.hidden = true; runProgram({ step }); };
  $('link-gate-run').onclick = go;
  $('link-gate-run').focus({ preventScroll: true });
  startEditor(); // the reader reads the program before running it
}
/** Any run (Run, Backward, an edit) means the reader chose to run: the gate goes. */
function dropLinkGate() { $('link-gate').hidden = true; }

// ---- start ----
function start() {
  const d = decodeHash(location.hash);
  if (!d.ok) { banner(`${d.error} Opening the first lesson instead.`); openLesson(DEFAULT_LESSON); return; }
  if (d.state) {
    app.state = d.state; editor.set(d.state.program); showLessonText(); syncSemantics(); syncLang();
    if (isBuiltInScenario(d.state)) runProgram({ step: d.state.step });
    else holdLinkedProgram(d.state.step);
  } else if (d.lesson && !findLesson(d.lesson)) { banner('This link names a lesson that does not exist. Opening the first lesson instead.'); openLesson(DEFAULT_LESSON); }
  else openLesson(d.lesson || DEFAULT_LESSON, { lang: d.lang || 'js' });
}
// replaceState does not fire hashchange: this only runs for links the user follows.
window.addEventListener('hashchange', () => start());
start();
