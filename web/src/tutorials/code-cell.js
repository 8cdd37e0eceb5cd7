// Editable code cells for the tutorial pages.
//
// Markup (works without JavaScript and in print):
//   <div class="cell" id="cell-video" >
//     <pre class="cell-src"><code>…program…</code></pre>
//   </div>
// The script turns the <pre> into a textarea with Run / Reset buttons and an
// output pane beside it. The program runs in a Web Worker through the
// playground's Runner (web/src/runner.js): a fresh wasm instance per run, and
// a watchdog that terminates a runaway hook after a few seconds. Running in a
// worker costs ~50 ms per run but a `while (true)` typed into a hook can never
// freeze the article (an in-page timeout cannot interrupt synchronous code).
//
// The program's console lines and the engine's warnings come back as events
// of the run's trace (tensors printed with their own toString(), PyTorch's
// repr), so the output pane shows what PyTorch would print, in order.
//
// A cell may also hold its program in Python (issue 30), a second
// <pre class="cell-src" data-lang="python">: then it shows the Python by
// default, with a Language switch (JavaScript one click away). The Python is
// the JavaScript's twin (same graph and trace), so the cell's first output,
// its figures and the numbers in the prose come from the JavaScript at once;
// PyTorch's own printed lines replace the output when Python is ready
// (runPython, called by the page after first paint).

import { encodeState } from '../model/state.js';

/** `hg.setSemantics('pytorch-1')` on a line of its own: the worker ignores the
 * call (its page owns the switch), so the cell reads it and runs with it. */
const SEMANTICS_LINE = /^[ \t]*hg\.setSemantics\(\s*(['"])(pytorch-[12])\1\s*\);?[ \t]*(\/\/.*)?$/gm;

/** In Python, `# semantics: pytorch-1` on a line of its own (hookgrad's switch, a comment to Python). */
const PY_SEMANTICS_LINE = /^[ \t]*#[ \t]*semantics:[ \t]*(pytorch-[12])\b.*$/m;

/** The semantics a program asks for, and the program with those lines made comments. */
export function readSemantics(program, fallback = 'pytorch-2', lang = 'js') {
  if (lang === 'python') return { semantics: PY_SEMANTICS_LINE.exec(program)?.[1] || fallback, program };
  let semantics = fallback;
  const text = program.replace(SEMANTICS_LINE, (line, q, s) => { semantics = s; return `// ${line.trim()} (applied by the cell)`; });
  return { semantics, program: text };
}

export class CodeCell {
  /**
   * @param el the .cell element
   * @param runner a Runner (shared by every cell of the page)
   * @param onRun called with (cell, result) after each run
   */
  constructor(el, runner, { onRun = () => {}, playground = null } = {}) {
    this.el = el; this.runner = runner; this.onRun = onRun; this.playground = playground;
    const pre = el.querySelector('pre.cell-src:not([data-lang=python])');
    const pyPre = el.querySelector('pre.cell-src[data-lang=python]');
    const clean = (t) => t.replace(/^\n/, '').replace(/\s+$/, '\n');
    this.original = clean(pre.textContent);
    this.sources = { js: this.original, python: pyPre ? clean(pyPre.textContent) : null };
    pyPre?.remove();
    this.lang = pyPre ? 'python' : 'js';
    this.texts = { js: null, python: null }; // the reader's edits per language
    this.semanticsDefault = el.dataset.semantics || 'pytorch-2';
    this.runs = 0;
    this.build(pre);
  }

  /** Is the cell showing its Python, unedited? Then the JavaScript twin stands in until Python is ready. */
  get pythonTwin() { return this.lang === 'python' && this.area.value === this.sources.python; }

  /** The Language switch: JavaScript | Python (only for a cell that has both). */
  langSwitch() {
    const box = document.createElement('span');
    box.className = 'cell-lang'; box.setAttribute('role', 'radiogroup');
    box.setAttribute('aria-label', `${this.el.dataset.label || 'Code cell'}: language`);
    const name = `lang-${this.el.id}`;
    for (const [value, text] of [['js', 'JavaScript'], ['python', 'Python']]) {
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'radio'; input.name = name; input.value = value; input.checked = value === this.lang;
      input.onchange = () => this.setLang(value);
      label.append(input, ` ${text}`);
      box.append(label);
    }
    return box;
  }

  setLang(lang) {
    if (lang === this.lang) return;
    this.texts[this.lang] = this.area.value;
    this.lang = lang;
    this.area.value = this.texts[lang] ?? this.sources[lang];
    this.el.dataset.lang = lang;
    this.fit(); this.syncPrint(); this.run();
  }

  build(pre) {
    const label = this.el.dataset.label || 'Code cell';
    const code = document.createElement('div');
    code.className = 'cell-code';
    this.area = document.createElement('textarea');
    this.area.className = 'cell-input';
    this.area.spellcheck = false;
    this.area.autocapitalize = 'off';
    this.area.setAttribute('autocorrect', 'off');
    this.area.setAttribute('aria-label', `${label}: code (Ctrl+Enter runs it)`);
    this.area.value = this.sources[this.lang];
    this.el.dataset.lang = this.lang;
    // The print copy: textareas print clipped, a <pre> prints in full.
    pre.classList.add('cell-print');
    pre.setAttribute('aria-hidden', 'true');
    const bar = document.createElement('div');
    bar.className = 'cell-bar';
    this.runBtn = button('Run', 'btn primary', `Run ${label.toLowerCase()}`);
    this.resetBtn = button('Reset', 'btn', `Reset ${label.toLowerCase()} to the original code`);
    this.status = document.createElement('span');
    this.status.className = 'cell-status';
    bar.append(this.runBtn, this.resetBtn);
    if (this.sources.python) bar.append(this.langSwitch());
    bar.append(this.status);
    if (this.playground) {
      // The same program in the full playground (editor, inspector, compare panes).
      this.open = document.createElement('a');
      this.open.className = 'cell-open';
      this.open.target = '_blank'; this.open.rel = 'noopener';
      this.open.textContent = 'Open in playground ↗';
      bar.append(this.open);
    }
    code.append(this.area, bar);

    this.out = document.createElement('div');
    this.out.className = 'cell-out';
    this.out.setAttribute('role', 'log');
    this.out.setAttribute('aria-label', `${label}: output`);
    this.out.innerHTML = '<p class="cell-hint">Press Run (or Ctrl+Enter) to see the output.</p>';

    pre.replaceWith(code);
    this.el.append(this.out, pre); // the print copy stays in the cell, hidden on screen
    this.el.classList.add('ready');
    this.syncPrint();

    this.runBtn.onclick = () => this.run();
    this.resetBtn.onclick = () => { this.area.value = this.sources[this.lang]; this.texts[this.lang] = null; this.fit(); this.syncPrint(); this.run(); };
    this.area.addEventListener('input', () => { this.fit(); this.syncPrint(); this.el.classList.add('edited'); });
    this.area.addEventListener('keydown', (e) => this.onKey(e));
    this.fit();
    // Wrapping changes with the width: refit when the cell is resized.
    if ('ResizeObserver' in window) {
      let w = 0;
      new ResizeObserver(([entry]) => { const cw = Math.round(entry.contentRect.width); if (cw !== w) { w = cw; this.fit(); } }).observe(this.area);
    }
  }

  onKey(e) {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.run(); return; }
    if (e.key === 'Tab' && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey) {
      // Two spaces, like the examples. Escape then Tab leaves the editor (keyboard users are not trapped).
      if (this.area.dataset.escaped === '1') { this.area.dataset.escaped = '0'; return; }
      e.preventDefault();
      this.area.setRangeText('  ', this.area.selectionStart, this.area.selectionEnd, 'end');
      this.area.dispatchEvent(new Event('input'));
    } else if (e.key === 'Escape') this.area.dataset.escaped = '1';
    else this.area.dataset.escaped = '0';
  }

  /** Grows the textarea to its content (no inner scrollbar for the examples). */
  fit() {
    // scrollHeight counts wrapped lines too (phones wrap code); before the
    // first layout it is 0, so the line count is the fallback.
    const lines = this.area.value.split('\n').length;
    const estimate = `calc(${Math.max(4, lines) * 1.5}em + 20px)`;
    this.area.style.height = '1px';
    const h = this.area.scrollHeight;
    this.area.style.height = h > 1 ? `${h + 2}px` : estimate;
  }

  syncPrint() {
    const pre = this.el.querySelector('pre.cell-print');
    if (pre) pre.textContent = this.area.value;
    if (this.open) {
      const { semantics, program } = readSemantics(this.area.value, this.semanticsDefault, this.lang);
      this.open.href = new URL(`playground.html${encodeState({ program, semantics, lang: this.lang })}`, this.playground).href;
    }
  }

  /** The cell's JavaScript (what figures and the prose's numbers are drawn from): the twin while the Python is unedited. */
  get code() { return this.lang === 'js' ? this.area.value : this.texts.js ?? this.sources.js; }

  set code(text) { this.area.value = text; this.fit(); this.syncPrint(); }

  /**
   * Runs the cell; resolves to the worker's result (console lines, graph,
   * trace, error). Unedited Python runs as its JavaScript twin until Python
   * is ready (then runPython shows PyTorch's lines); edited Python waits for
   * Python, and the figures keep following the JavaScript.
   */
  async run() {
    const twin = this.pythonTwin && !this.pythonReady;
    const lang = twin ? 'js' : this.lang;
    const { semantics, program } = readSemantics(twin ? this.sources.js : this.area.value, this.semanticsDefault, lang);
    this.runBtn.disabled = true;
    this.el.classList.add('running');
    this.status.textContent = lang === 'python' && !this.pythonReady ? 'Loading Python…' : 'Running…';
    let result;
    try {
      result = await this.runner.run(program, semantics, lang);
    } catch (e) {
      result = { trace: [], error: { message: `The cell could not run: ${e && e.message}` } };
    }
    this.runs++;
    this.semantics = semantics;
    this.render(result, semantics, lang, twin);
    this.runBtn.disabled = false;
    this.el.classList.remove('running');
    this.el.dataset.runs = String(this.runs);
    // Unedited Python gives its JavaScript twin's graph and trace: the figures
    // already show them. Edited Python is new: the page redraws from it.
    if (lang === 'js' || !this.pythonTwin) this.onRun(this, result, lang);
    return result;
  }

  /** Python is ready (the page loaded it after first paint): a cell showing Python runs it. */
  async runPython() {
    this.pythonReady = true;
    if (this.lang === 'python') await this.run();
  }

  render(result, semantics, lang = 'js', twin = false) {
    const list = document.createElement('ol');
    list.className = 'cell-lines';
    for (const line of consoleLines(result)) {
      const li = document.createElement('li');
      li.className = `line ${line.level}`;
      li.textContent = line.text; // program output is text, never HTML
      list.append(li);
    }
    const parts = [];
    if (list.children.length) parts.push(list);
    else if (!result.error) parts.push(note('(no output)'));
    if (result.error) {
      const box = document.createElement('p');
      box.className = 'cell-error';
      box.textContent = result.error.traceback || (result.error.line ? `Line ${result.error.line}: ${result.error.message}` : result.error.message);
      parts.push(box);
    }
    const ms = Number.isFinite(result.ms) ? ` · ${result.ms.toFixed(0)} ms` : '';
    const how = twin ? ' · output of the JavaScript twin (Python is loading)' : lang === 'python' ? ' · Python' : '';
    this.status.textContent = `${result.error ? 'Failed' : 'Done'} · ${semantics === 'pytorch-1' ? 'PyTorch 1.x' : 'PyTorch 2'} semantics${ms}${how}`;
    this.out.replaceChildren(...parts);
  }
}

/**
 * The run's console, in order: the program's lines are the trace's `log`
 * events (already formatted, tensors in PyTorch's repr) and the engine's
 * warnings its `warning` events, where they happened.
 */
export function consoleLines(result) {
  const out = [];
  for (const ev of result.trace || []) {
    if (ev.type === 'log') out.push({ level: ev.level === 'warn' || ev.level === 'error' ? ev.level : 'log', text: ev.text });
    else if (ev.type === 'warning') out.push({ level: 'warn', text: ev.message });
  }
  return out;
}

function button(text, cls, label) {
  const b = document.createElement('button');
  b.type = 'button'; b.className = cls; b.textContent = text;
  if (label) b.setAttribute('aria-label', label);
  return b;
}

function note(text) {
  const p = document.createElement('p');
  p.className = 'cell-hint'; p.textContent = text;
  return p;
}
