// The adjoint page's A editor and comparison table.
//
// The reader edits A in a 3×3 grid (or in the cell's `const A = …;` line).
// Then three things are recomputed by the engine, never by this file:
//   - the code cell (its console output) and the figures drawn from it;
//   - the table: a fixed program built from A's numbers runs in the same
//     worker as the cells and prints one JSON line with what the full
//     backward hooks captured and what the recursion λ_k = λ_{k+1} + Aᵀλ_{k+1}
//     gives. This file only lays the numbers out and compares them.
import { runner, cells } from './page.js';
import { formatValue } from '../model/format.js';
import { consoleLines } from './code-cell.js';

const CELL = 'cell-adjoint';
/** The cell's line that defines A, in each of its languages. */
const A_LINES = { js: /^const A = (\[.*\]);[^\n]*$/m, python: /^A = (\[.*\])[ \t]*(#[^\n]*)?$/m };

const grid = document.getElementById('a-grid');
const table = document.getElementById('adjoint-table');
const cell = cells.get(CELL);
const inputs = [...grid.querySelectorAll('input')];

/** A from the grid, or null when an entry is not a number. */
function gridA() {
  const v = inputs.map((i) => (i.value.trim() === '' ? NaN : Number(i.value)));
  inputs.forEach((i, k) => i.setAttribute('aria-invalid', String(!Number.isFinite(v[k]))));
  if (!v.every(Number.isFinite)) return null;
  return [v.slice(0, 3), v.slice(3, 6), v.slice(6, 9)];
}

/** A from the cell's `const A = [[…], …];` line (Python: `A = [[…], …]`), or null. */
function codeA(code, lang = 'js') {
  const m = A_LINES[lang].exec(code);
  if (!m) return null;
  try {
    const a = JSON.parse(m[1]);
    const ok = Array.isArray(a) && a.length === 3 && a.every((r) => Array.isArray(r) && r.length === 3 && r.every(Number.isFinite));
    return ok ? a : null;
  } catch { return null; }
}

const literal = (A) => `[${A.map((r) => `[${r.join(', ')}]`).join(', ')}]`;

function setGrid(A) { A.flat().forEach((x, k) => { inputs[k].value = String(x); inputs[k].removeAttribute('aria-invalid'); }); }

/** The table's program: the cell's model with hooks that record numbers, and the recursion. */
function tableProgram(A) {
  return `const A = ${literal(A)};
const layers = [0, 1, 2].map((k) => {
  const layer = new hg.Module('Layer' + k, (u) => u.add(layer.getParameter('A').matmul(u)));
  layer.registerParameter('A', hg.tensor(A, { requiresGrad: true }));
  return layer;
});
const hooks = [];
for (const layer of layers) layer.registerFullBackwardHook((m, gi, go) => {
  hooks.push({ layer: m.name, gradOutput: go[0].toArray(), gradInput: gi[0] === null ? null : gi[0].toArray() });
});
const y = hg.tensor([0, 1, 0]);
let u = hg.tensor([1, 0.5, -1]);
for (const layer of layers) u = layer.call(u);
u.sub(y).pow(2).sum().mul(0.5).backward();
let lam = u.detach().sub(y);
const recursion = [lam.toArray()];
for (let k = 2; k >= 0; k--) { lam = lam.add(layers[k].getParameter('A').detach().t().matmul(lam)); recursion.push(lam.toArray()); }
console.log(JSON.stringify({ hooks, recursion }));
`;
}

const close = (x, y) => x.length === y.length && x.every((v, i) => Math.abs(v - y[i]) <= 1e-5 * Math.max(1, Math.abs(v), Math.abs(y[i])));

let tableSeq = 0;
async function updateTable(A) {
  const seq = ++tableSeq;
  table.classList.add('stale');
  const result = await runner.run(tableProgram(A), 'pytorch-2');
  if (seq !== tableSeq) return;
  const line = consoleLines(result).find((l) => l.level === 'log' && l.text.startsWith('{'));
  const body = table.querySelector('tbody');
  if (result.error || !line) {
    body.innerHTML = '';
    const tr = body.insertRow(); const td = tr.insertCell(); td.colSpan = 4;
    td.textContent = `Could not compute the table: ${result.error ? result.error.message : 'no output'}`;
    return;
  }
  const { hooks, recursion } = JSON.parse(line.text);
  // Hooks fire from the last layer back: Layer2 (λ3 → λ2), Layer1, Layer0.
  const byLayer = Object.fromEntries(hooks.map((h) => [h.layer, h]));
  const rows = [
    { lam: 3, hook: byLayer.Layer2?.gradOutput, from: 'Layer2 grad_output', rec: recursion[0], how: 'u₃ − y' },
    { lam: 2, hook: byLayer.Layer2?.gradInput, from: 'Layer2 grad_input = Layer1 grad_output', also: byLayer.Layer1?.gradOutput, rec: recursion[1], how: 'λ₃ + Aᵀλ₃' },
    { lam: 1, hook: byLayer.Layer1?.gradInput, from: 'Layer1 grad_input = Layer0 grad_output', also: byLayer.Layer0?.gradOutput, rec: recursion[2], how: 'λ₂ + Aᵀλ₂' },
    { lam: 0, hook: byLayer.Layer0?.gradInput ?? null, from: 'Layer0 grad_input', rec: recursion[3], how: 'λ₁ + Aᵀλ₁' },
  ];
  body.replaceChildren(...rows.map((r) => {
    const tr = document.createElement('tr');
    tr.dataset.lambda = String(r.lam);
    const th = document.createElement('th'); th.scope = 'row'; th.innerHTML = `λ<sub>${r.lam}</sub>`;
    const hook = document.createElement('td'); hook.className = 'num'; hook.dataset.col = 'hook';
    hook.textContent = r.hook == null ? 'None' : formatValue(r.hook);
    hook.title = r.from;
    const rec = document.createElement('td'); rec.className = 'num'; rec.dataset.col = 'recursion';
    rec.textContent = formatValue(r.rec); rec.title = r.how;
    const eq = document.createElement('td');
    if (r.hook == null) { eq.textContent = '— (u₀ needs no gradient)'; }
    else {
      const same = close(r.hook, r.rec) && (r.also === undefined || close(r.also, r.hook));
      eq.textContent = same ? '✓ equal' : '✗ differ';
      eq.className = same ? 'ok' : 'bad';
    }
    tr.append(th, hook, rec, eq);
    return tr;
  }));
  table.classList.remove('stale');
}

/** New A from the grid: rewrite the cell's A line, run the cell (figures follow), redo the table. */
function applyA(A, { runCell = true } = {}) {
  if (runCell && cell) {
    // The program the reader sees, in the language shown (JavaScript or Python).
    const code = cell.area.value; const line = A_LINES[cell.lang];
    if (line.test(code)) cell.code = code.replace(line, (l) => l.replace(/= \[.*\]/, `= ${literal(A)}`));
    cell.run();
  }
  return updateTable(A);
}

let timer = null;
/** The reader has typed in the grid since it was last applied: the grid, not the code, is the truth. */
let gridEdited = false;
for (const input of inputs) {
  input.addEventListener('input', () => {
    gridEdited = true;
    clearTimeout(timer);
    timer = setTimeout(() => { const A = gridA(); gridEdited = false; if (A) applyA(A); }, 350);
  });
}
document.getElementById('a-reset').onclick = () => {
  clearTimeout(timer); gridEdited = false;
  setGrid(codeA(cell.original));
  applyA(gridA());
};

// The reader may also edit the A line in the cell itself: the grid and the table follow.
// Not while the reader is typing in the grid: a run that ends then (of an A
// applied a moment ago) would put back entries the reader has just changed.
cell?.el.addEventListener('cell-run', () => {
  if (gridEdited) return;
  const A = codeA(cell.area.value, cell.lang);
  const G = gridA();
  if (A && (!G || literal(A) !== literal(G))) { setGrid(A); updateTable(A); }
});

setGrid(codeA(cell.area.value, cell.lang));
updateTable(gridA());
