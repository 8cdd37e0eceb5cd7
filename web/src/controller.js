// One playground controller for playground.html and embed.html: run → session
// → graph view → player → step text, the player's buttons and keys, Stop.
// The pages only wire what they have on top (editor, URL, inspector, console).
import { Runner } from './runner.js';
import { buildSession, relayout, chooseLayout, yieldToPage, warmLayout } from './session.js';
import { BIG_UNITS } from './model/layout.js';
import { frameAt } from './model/trace-model.js';
import { stepSentence, hasBackward, summaryParts } from './model/step-text.js';
import { GraphView } from './view/graph-view.js';
import { Player, renderStepText } from './view/player.js';
import { PLAY, PAUSE } from './view/icons.js';
import { renderCompare } from './view/compare-view.js';
import { downloadSvg, downloadPng } from './view/export.js';
import { predictionAt } from './model/predict.js';
import { renderPrediction } from './view/predict-view.js';

/**
 * opts:
 *  getSource() → { program, semantics, lesson, lang, twin }   what to run (lesson: a lessons.js entry or null;
 *                              lang 'js' | 'python'; twin: a lesson's JS standing in for its Python, model/lang.js)
 *  onProgress(p)               what the Python worker is loading ({stage, text, loaded?, total?})
 *  onFrame(k, frame, ctl)      after the shared parts of a frame are drawn
 *  onSession(session, ctl)     after a run's graph is drawn
 *  onBusy(busy)                a run starts / ends
 *  cooperative                 graph gestures for embeds (see GraphView)
 *  keyboard                    Space / ← / → / Home / End / Escape on the document
 *  runner                      a Runner already started (early-runner.js: the playground starts it before its modules load)
 */
export class Controller {
  constructor({ getSource, onFrame = () => {}, onSession = () => {}, onBusy = () => {}, onProgress = () => {}, cooperative = false, keyboard = true, root = document, runner = null } = {}) {
    const $ = (id) => root.getElementById(id);
    this.$ = $; this.getSource = getSource; this.onFrame = onFrame; this.onSession = onSession; this.onBusy = onBusy;
    this.session = null; this.dirty = true; this.selected = {}; this.collapsed = new Set(); this.follow = false; this.running = null; this.frame = null;
    this.runner = runner || new Runner({ pkgUrl: new URL('pkg/hookgrad.js', document.baseURI).href });
    this.runner.onProgress = (p) => onProgress(p);
    this.view = new GraphView($('graph'), {
      cooperative,
      onSelect: (sel) => { this.selected = sel; this.render(); this.view.reveal(this.view.boxOf(sel)); },
      onToggleModule: async (key) => {
        // From now on the reader's choice of collapsed modules is kept across runs.
        const set = new Set(this.session.collapsed);
        if (set.has(key)) set.delete(key); else set.add(key);
        this.collapsed = set;
        this.session = await relayout(this.session, set);
        if (await this.draw()) this.render();
      },
    });
    this.player = new Player({
      onFrame: (k, { animate }) => this.render(k, animate),
      onState: (p) => {
        const b = $('play-btn'); if (!b) return;
        b.innerHTML = p.playing ? PAUSE : PLAY; b.setAttribute('aria-label', p.playing ? 'Pause' : 'Play');
      },
    });
    this.wire(keyboard);
  }

  wire(keyboard) {
    const { $ } = this; const on = (id, fn) => { const e = $(id); if (e) e.onclick = fn; };
    on('run-btn', () => (this.busy ? this.stop() : this.run()));
    on('backward-btn', () => this.backward());
    on('play-btn', () => { this.follow = true; this.player.toggle(); });
    on('step-btn', () => { this.follow = true; this.player.step(1); });
    on('back-btn', () => { this.follow = true; this.player.step(-1); });
    on('zoom-in', () => this.view.zoomBy(1.25));
    on('zoom-out', () => this.view.zoomBy(0.8));
    on('zoom-fit', () => { this.view.fit(); });
    on('export-svg', () => downloadSvg($('graph'), this.view));
    on('export-png', () => downloadPng($('graph'), this.view));
    // Scrubbing is moving through the steps too: the camera keeps the running node in view.
    if ($('scrub')) $('scrub').oninput = (e) => { this.follow = true; this.player.pause(); this.player.seek(Number(e.target.value)); };
    if ($('speed')) $('speed').onchange = (e) => this.player.setSpeed(Number(e.target.value));
    $('graph').addEventListener('click', () => { if (this.selected.tensor != null || this.selected.node != null) { this.selected = {}; this.render(); } });
    if (keyboard) document.addEventListener('keydown', (e) => this.onKey(e));
  }

  onKey(e) {
    const { player } = this;
    if (e.key === 'Escape' && !e.target.closest('.cm-editor, dialog') && (this.selected.tensor != null || this.selected.node != null)) {
      this.selected = {}; this.render(); return;
    }
    if (e.target.closest('.cm-editor, input, select, textarea, dialog') || e.altKey || e.ctrlKey || e.metaKey) return;
    if (['ArrowRight', 'ArrowLeft', ' ', 'Home', 'End'].includes(e.key)) this.follow = true;
    if (e.key === ' ' && !e.target.closest('button, [role=button], a')) { e.preventDefault(); player.toggle(); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); player.step(1); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); player.step(-1); }
    else if (e.key === 'End') { e.preventDefault(); player.pause(); player.seek(player.total); }
    else if (e.key === 'Home') { e.preventDefault(); player.pause(); player.seek(0); }
  }

  setBusy(b) {
    this.busy = b;
    document.body.classList.toggle('busy', b);
    const run = this.$('run-btn'); const bw = this.$('backward-btn');
    if (bw) bw.disabled = b;
    if (run) { run.textContent = b ? 'Stop' : 'Run'; run.classList.toggle('stop', b); run.setAttribute('aria-label', b ? 'Stop the running program' : 'Run'); }
    this.onBusy(b);
  }

  /** Stops a running program (the worker is terminated; what it printed so far is kept). */
  stop() { this.runner.stop(); }

  async run({ backward = false, step = null } = {}) {
    this.player.pause(); this.setBusy(true); this.follow = backward;
    const myRun = Symbol('run'); this.running = myRun;
    const src = this.getSource();
    const running = this.runner.run(src.program, src.semantics, src.lang);
    // The page waits for the sandbox: compile the layout code meanwhile (once, in idle time).
    warmLayout();
    const result = await running;
    if (this.running !== myRun) return false;
    const pane = this.view.size();
    const session = await buildSession(result, { collapsed: this.collapsed, pane, keep: src.lesson?.view?.module });
    if (this.running !== myRun) return false;
    session.twin = !!src.twin; session.lang = src.lang || 'js';
    this.session = session; this.dirty = false;
    if (!(await this.draw()) || this.running !== myRun) return false;
    performance.mark?.('hookgrad:drawn');
    const { model } = session;
    // A big graph's first frame (step text, inspector, canvas) is a task of its own.
    if (session.input.units.length > BIG_UNITS) { await yieldToPage(); if (this.running !== myRun) return false; }
    // A forward-only program opens at its start, with its forward story to play.
    // (A failed run opens at its error, at the end.)
    this.player.load(model.steps.length, step ?? (hasBackward(model) || result.error ? model.forwardEnd : 0), model.figureStart);
    if (!(await this.refitToPane(pane)) || this.running !== myRun) return false;
    if (typeof step === 'number' && !(await this.showStep(this.player.k))) return false;
    this.setBusy(false);
    this.onSession(session, this);
    if (backward && hasBackward(model)) this.player.play({ from: model.forwardEnd });
    return true;
  }

  /**
   * The first frame can change the pane's size (a lesson's comparison table
   * appears beside or below the figure, the step text wraps): the level of
   * detail was chosen for `pane`, so choose it again for the pane the reader
   * actually sees. Returns false if the draw failed.
   */
  async refitToPane(pane) {
    const frame = () => new Promise((r) => { requestAnimationFrame(() => r()); });
    await frame(); await frame(); // the ResizeObserver has reported by then
    const now = this.view.size();
    if (!this.session || !(now.width > 0) || (Math.abs(now.width - pane.width) <= 8 && Math.abs(now.height - pane.height) <= 8)) return true;
    const again = await chooseLayout(this.session.model, { collapsed: this.collapsed, pane: now, keep: this.getSource().lesson?.view?.module });
    this.session = { ...this.session, ...again, lod: again.input.lod };
    if (!(await this.draw())) return false;
    this.render();
    return true;
  }

  /**
   * Opened at a given step (an embed's #step=N): the camera shows that
   * step's running node, focused tensor and changed .grad, expanding the
   * collapsed modules that hide them (for this run only: the reader's own
   * choice, this.collapsed, is untouched). Returns false if the draw failed.
   */
  async showStep(k) {
    for (let i = 0; i < 8; i++) {
      const s = this.session; const hiding = this.hidingModules(frameAt(s.model, k));
      if (!hiding.size) break;
      const set = new Set(s.collapsed); for (const key of hiding) set.delete(key);
      this.session = await relayout(s, set);
      if (!(await this.draw())) return false;
    }
    this.follow = true; this.render(k);
    return true;
  }

  /** The collapsed modules that hide frame's running node, focused tensor or changed .grad. */
  hidingModules(frame) {
    const s = this.session; const f = frame.focus || {}; const ev = frame.step?.event;
    const grad = ev && (ev.type === 'accumulate' || ev.type === 'grad-set' || (ev.type === 'hook' && ev.kind === 'retain-grad')) ? ev.tensor : null;
    const units = [f.node != null ? s.input.unitOfNode[f.node] : null, f.tensor != null ? s.input.unitOfTensor[f.tensor] : null, grad != null ? s.input.unitOfTensor[grad] : null];
    return new Set(units.filter(Boolean).map((id) => s.input.units.find((u) => u.id === id)?.placeholder).filter(Boolean));
  }

  backward() {
    this.follow = true;
    const s = this.session;
    if (!s || this.dirty) return this.run({ backward: true });
    // A forward-only program: Backward plays its forward story instead.
    if (!hasBackward(s.model)) { const k = this.player.k; return this.player.play({ from: k >= s.model.steps.length ? 0 : k }); }
    const k = this.player.k;
    return this.player.play({ from: k >= s.model.steps.length || k < s.model.forwardEnd ? s.model.forwardEnd : k });
  }

  async draw() {
    const { model, input, layout, legacy, result } = this.session;
    const empty = !model.tensors.size && !model.nodes.size;
    const box = this.$('graph-empty');
    if (box) {
      box.hidden = !empty;
      box.textContent = empty ? (result.error?.message || 'The program created no tensors.') : '';
      box.classList.toggle('is-error', empty && !!result.error);
    }
    return this.view.setGraph(model, input, layout, { legacyHandles: legacy, focusModule: this.getSource().lesson?.view?.module });
  }

  /** Draws frame k (default: the player's). */
  render(k = this.player.k, animate = false) {
    if (!this.session) return;
    const { $ } = this; const { model, result } = this.session;
    const frame = frameAt(model, k); this.frame = frame;
    // A backward step never runs inside a closed box: the module holding
    // its node opens (for this run; the reader's own choice is kept).
    if (frame.step?.backward && !this.revealing && this.hidingModules(frame).size) {
      this.revealing = true;
      this.showStep(k).finally(() => { this.revealing = false; });
      return;
    }
    this.view.update(frame, { selected: this.selected, animate, follow: this.follow });
    const total = model.steps.length;
    // Steps are counted from the first one the figure shows: a training loop's
    // earlier steps (their tensors released) are not part of the story.
    const base = model.figureStart || 0;
    if ($('scrub')) { $('scrub').min = String(base); $('scrub').max = String(total); $('scrub').value = String(k); $('scrub').setAttribute('aria-valuetext', `step ${k - base} of ${total - base}`); }
    if ($('step-count')) {
      $('step-count').textContent = `${k - base} / ${total - base}`;
      $('step-count').title = base ? `The last pass, the one the figure draws; ${base} earlier events of the run (released tensors) are not replayed.` : '';
    }
    const s = stepSentence(model, k, frame, result.error, this.session.lang);
    renderStepText($('step-text'), s, s.summary ? summaryParts(s.summary, 26) : null);
    const lesson = this.getSource().lesson;
    // Before the lesson's key hook fires, the reader is asked what it will see (and playing stops there).
    const question = $('step-text') ? predictionAt(model, k, lesson?.predict) : null;
    if (question && this.player.playing) this.player.pause();
    renderPrediction($('step-text'), question, this.picked ||= new Map());
    if ($('compare')) {
      renderCompare($('compare'), { model, k, columns: lesson?.compare, warnRoot: $('compare-warning') || $('compare'),
        onSelectNode: (node) => { this.selected = { node }; this.render(); this.view.reveal(this.view.boxOf({ node }), { force: true }); } });
    }
    this.onFrame(k, frame, this);
  }
}
