// Entry of every tutorial page (web/tutorials/*.html): code cells, live
// figures, and anchors. Pages sit one folder below the site root, so the
// engine package is ../pkg/ and the embed ../embed.html.
import { Runner } from '../runner.js';
import { CodeCell, readSemantics } from './code-cell.js';
import { Figure } from './figure.js';
import { formatValue } from '../model/format.js';
import './tutorial.css';

const SITE = new URL('../', document.baseURI);
export const runner = new Runner({
  pkgUrl: new URL('pkg/hookgrad.js', SITE).href,
});

export const figures = new Map();
export const cells = new Map();

for (const el of document.querySelectorAll('figure.hg-figure')) figures.set(el.id, new Figure(el, runner, SITE));

for (const el of document.querySelectorAll('.cell')) {
  const cell = new CodeCell(el, runner, {
    playground: SITE,
    onRun(c, result, lang = 'js') {
      // A cell that runs without an error redraws the figures drawn from it,
      // in the language it ran (the reader's edited Python is drawn as Python).
      if (!result.error) {
        const code = lang === 'python' ? c.area.value : c.code;
        for (const fig of figures.values()) {
          if (fig.el.dataset.cell === el.id) fig.set(figureProgram(fig, code, c.semanticsDefault, lang), c.semantics, lang);
        }
      }
      bindValues(el.id, result);
      el.dispatchEvent(new CustomEvent('cell-run', { detail: { cell: c, result }, bubbles: true }));
    },
  });
  cells.set(el.id, cell);
}

/**
 * Numbers in the prose and tables that a cell computes: `<td data-cell="cell-video"
 * data-value="grad:e">` shows e.grad from that cell's last run (the engine's
 * graph() data), `data-value="data:out"` a tensor's value. Nothing is typed in.
 */
function bindValues(cellId, result) {
  for (const el of document.querySelectorAll(`[data-cell="${cellId}"][data-value]`)) {
    const [what, name] = el.dataset.value.split(':');
    const t = (result.graph?.tensors || []).find((x) => x.name === name);
    const v = !t ? undefined : what === 'grad' ? t.grad : t.data;
    el.textContent = v === undefined ? '—' : formatValue(v);
    el.classList.toggle('stale', v === undefined);
  }
}

/**
 * A figure draws its cell's program, up to the line that starts with its
 * `data-cut` text if it has one (e.g. a hand computation after the backward
 * pass that would only crowd the graph).
 */
function figureProgram(fig, code, semanticsDefault, lang = 'js') {
  let { program } = readSemantics(code, semanticsDefault, lang);
  // A cut written as a JS comment (`// The adjoint recursion`) is the same comment in Python (`# …`).
  const cut = lang === 'python' ? fig.el.dataset.cut?.replace(/^\/\/\s*/, '# ') : fig.el.dataset.cut;
  if (cut) {
    const at = program.split('\n').findIndex((line) => line.trimStart().startsWith(cut));
    if (at >= 0) program = program.split('\n').slice(0, at).join('\n');
  }
  return program;
}

// Figures start from their cell's code, before the cell has run.
for (const fig of figures.values()) {
  const cell = cells.get(fig.el.dataset.cell);
  if (cell) {
    fig.program = figureProgram(fig, cell.code, cell.semanticsDefault);
    fig.semantics = readSemantics(cell.code, cell.semanticsDefault).semantics;
  }
}

// Figures load when they come near the viewport (each one is an iframe with
// its own engine); the anchor a link points to loads at once.
const io = 'IntersectionObserver' in window ? new IntersectionObserver((entries) => {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    io.unobserve(e.target);
    const fig = figures.get(e.target.id);
    if (fig && !fig.shown) fig.show();
  }
}, { rootMargin: '400px 0px' }) : null;
for (const fig of figures.values()) {
  if (io) io.observe(fig.el); else fig.show();
}

// Every figure and cell gets a visible anchor link (#fig-2).
for (const el of [...figures.values()].map((f) => f.el)) {
  const cap = el.querySelector('figcaption');
  if (!cap || cap.querySelector('.anchor')) continue;
  const a = document.createElement('a');
  a.className = 'anchor'; a.href = `#${el.id}`; a.textContent = '#';
  a.setAttribute('aria-label', `Link to ${el.id.replace('fig-', 'figure ')}`);
  cap.prepend(a);
}

// Cells run one after another once the page is idle, so their output is there
// to read (and to print) without pressing anything.
async function runAll() {
  for (const cell of cells.values()) if (!cell.runs && !cell.el.hasAttribute('data-manual')) await cell.run();
  document.body.dataset.cellsReady = '1';
  performance.mark?.('hookgrad:cells-ready'); // tests: no Pyodide byte before this
  // Cells that show Python ran as their JavaScript twins (same graph and
  // trace: figures and numbers are final). Now, after first paint, Python
  // loads and each such cell shows PyTorch's own printed lines.
  const py = [...cells.values()].filter((c) => c.sources.python);
  if (!py.length) return;
  const r = await runner.preparePython();
  if (!r.ok) { for (const c of py) c.status.textContent = `Python could not be loaded (${r.message}); the output above is the JavaScript twin's.`; return; }
  for (const c of py) await c.runPython();
  document.body.dataset.pythonReady = '1';
}
const idle = window.requestIdleCallback || ((f) => setTimeout(f, 200));
idle(() => runAll(), { timeout: 1000 });
