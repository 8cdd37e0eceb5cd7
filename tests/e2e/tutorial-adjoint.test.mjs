// The adjoint tutorial in Chromium against web/dist: its full backward hooks
// against the adjoint recursion, in JavaScript and in Python, before and after
// the reader edits A — every number compared with real PyTorch's
// (tests/fixtures/pytorch.json, scenario tutorial_adjoint).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './helpers.mjs';
import { FIX, useEnv, numbers, assertClose, openTutorial, lines, printed, figureReady, playToEnd, allFigures } from './tutorial-page.mjs';

let env;
before(async () => { env = await setup(); useEnv(env); });
after(async () => { await env?.close(); });


async function checkAdjoint(page, fx, label) {
  for (const h of fx.hooks) {
    const gi = h.grad_input[0] === null ? [] : h.grad_input;
    assertClose(await printed(page, 'cell-adjoint', `Layer${h.layer} hook: grad_output`), [h.grad_output, gi], `${label} Layer${h.layer} hook`);
  }
  for (let k = 3; k >= 0; k--) assertClose(await printed(page, 'cell-adjoint', `recursion λ${k}`), fx.recursion[3 - k], `${label} recursion λ${k}`);
  // The table: hooks column (grad_output of Layer2, then grad_input of each layer) and recursion column.
  const hookCol = [fx.hooks[0].grad_output, fx.hooks[0].grad_input, fx.hooks[1].grad_input, fx.hooks[2].grad_input];
  for (let k = 3; k >= 0; k--) {
    const row = page.locator(`#adjoint-table tr[data-lambda="${k}"]`);
    const hookText = await row.locator('td[data-col="hook"]').textContent();
    if (hookCol[3 - k][0] === null) assert.equal(hookText, 'None');
    else assertClose(numbers(hookText), hookCol[3 - k], `${label} table hook λ${k}`);
    assertClose(numbers(await row.locator('td[data-col="recursion"]').textContent()), fx.recursion[3 - k], `${label} table recursion λ${k}`);
    if (k > 0) assert.match(await row.textContent(), /equal/);
  }
}

/**
 * Waits for the run of the whole edited A: on a slow machine the grid's
 * debounce can fire between two of the nine entries, and a run of a partly
 * edited A finishes first. The last entry's value is in the cell's A line, and
 * neither the cell nor the table is still computing.
 */
async function settled(page, runs, edited, timeout) {
  // The A line as the page writes it: `[[0.5, 0, 0], [0, -0.5, 0.25], [0.25, 0, 0]]`.
  const literal = `[${[0, 3, 6].map((i) => `[${edited.slice(i, i + 3).join(', ')}]`).join(', ')}]`;
  await page.waitForFunction(([n, lit]) => {
    const cell = document.querySelector('#cell-adjoint');
    const aLine = cell.querySelector('textarea').value.split('\n').find((l) => /^(const )?A = /.test(l)) || '';
    return Number(cell.dataset.runs) > n && !cell.classList.contains('running') && aLine.includes(`= ${lit}`)
      && !document.querySelector('#adjoint-table').classList.contains('stale');
  }, [runs, literal], { timeout }).catch(async (e) => {
    // Say which of the four conditions never came true.
    const state = await page.evaluate(() => {
      const cell = document.querySelector('#cell-adjoint');
      return { runs: cell.dataset.runs, running: cell.classList.contains('running'), status: cell.querySelector('.cell-status')?.textContent,
        aLine: cell.querySelector('textarea').value.split('\n').find((l) => /^(const )?A = /.test(l)),
        stale: document.querySelector('#adjoint-table').classList.contains('stale'), table: document.querySelector('#adjoint-table').textContent.slice(0, 300) };
    });
    throw new Error(`${e.message}; waited for runs > ${runs} and A = ${literal}; the page: ${JSON.stringify(state)}`);
  });
}

test('adjoint: full backward hooks equal the recursion; editing A changes both, as in PyTorch', async () => {
  const page = await openTutorial('adjoint');
  const fx = FIX.tutorial_adjoint;
  await page.waitForFunction(() => document.querySelector('#adjoint-table tr[data-lambda="0"]'), null, { timeout: 15000 });
  await checkAdjoint(page, fx.default, 'default A');
  assert.ok((await lines(page, 'cell-adjoint')).includes(fx.default.warnings[0].message), 'PyTorch\'s warning for a hook with no input needing grad');

  // The reader edits A in the grid: the cell, its figures and the table recompute.
  // (The cell shows its Python by default; here its JavaScript.)
  const runs0 = Number(await page.locator('#cell-adjoint').getAttribute('data-runs'));
  await page.locator('#cell-adjoint').getByRole('radio', { name: 'JavaScript' }).check();
  await page.waitForFunction((n) => Number(document.querySelector('#cell-adjoint').dataset.runs) > n, runs0, { timeout: 15000 });
  const runs = Number(await page.locator('#cell-adjoint').getAttribute('data-runs'));
  const inputs = page.locator('#a-grid input');
  const edited = fx.edited.A.flat();
  for (let i = 0; i < 9; i++) await inputs.nth(i).fill(String(edited[i]));
  await settled(page, runs, edited, 30000);
  assert.match(await page.locator('#cell-adjoint textarea').inputValue(), new RegExp(`const A = \\[\\[${edited.slice(0, 3).join(', ')}\\]`));
  await checkAdjoint(page, fx.edited, 'edited A');
  await allFigures(page);
  const { frame, total } = await figureReady(page, 'fig-1');
  await playToEnd(page, 'fig-1', frame, total);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('adjoint in Python: PyTorch\'s own lines, and editing A rewrites the Python and reruns it', async () => {
  const page = await openTutorial('adjoint');
  const fx = FIX.tutorial_adjoint;
  await page.waitForFunction(() => document.body.dataset.pythonReady === '1', null, { timeout: 90000 });
  assert.match(await page.locator('#cell-adjoint .cell-status').textContent(), /Python$/);
  await checkAdjoint(page, fx.default, 'Python, default A');
  const runs = Number(await page.locator('#cell-adjoint').getAttribute('data-runs'));
  const inputs = page.locator('#a-grid input');
  const edited = fx.edited.A.flat();
  for (let i = 0; i < 9; i++) await inputs.nth(i).fill(String(edited[i]));
  await settled(page, runs, edited, 60000);
  assert.match(await page.locator('#cell-adjoint textarea').inputValue(), new RegExp(`^A = \\[\\[${edited.slice(0, 3).join(', ')}\\]`, 'm'));
  await checkAdjoint(page, fx.edited, 'Python, edited A');
  assert.match(await page.locator('#cell-adjoint .cell-status').textContent(), /Python$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
