// The inspector's .grad table follows the program's own `.grad` assignments
// (`grad-set` trace events): lesson 14 zeroes its parameters before the last
// backward, so where the player starts that pass every parameter's .grad is
// None (PyTorch: `zero_grad()` sets them to None), not the previous training
// step's gradient; at the end the table shows the gradients PyTorch computed
// (tests/fixtures/pytorch.json, lesson_training_loop, formatted as the page
// formats them: 4 decimals).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, waitForRun, toEnd, ROOT } from './helpers.mjs';
import { formatValue } from '../../web/src/model/format.js';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const FIX = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'pytorch.json'), 'utf8')).scenarios;

/** The .grad table as [row header, cell] pairs. */
async function gradTable(page) {
  const rows = page.getByRole('table', { name: 'Gradients at this step' }).getByRole('row');
  const out = [];
  for (let i = 0; i < await rows.count(); i++) {
    out.push([(await rows.nth(i).getByRole('rowheader').textContent()).trim(), (await rows.nth(i).getByRole('cell').textContent()).trim()]);
  }
  return out;
}

test('lesson 14: after zeroGrad() the parameters\' .grad is None where the last backward starts, then PyTorch\'s gradients', async () => {
  const page = await env.page('#lesson=training-loop');
  await waitForRun(page, 30000);
  await page.getByRole('button', { name: 'Backward', exact: true }).click(); // to the start of the drawn pass
  await page.waitForTimeout(300);
  // Linear(2, 4), Linear(4, 1): weight, bias, weight, bias (no other leaf needs grad), named by
  // the lesson with their qualified names (namedParameters).
  assert.deepEqual(await gradTable(page), [['0.weight.grad', 'None'], ['0.bias.grad', 'None'], ['2.weight.grad', 'None'], ['2.bias.grad', 'None']]);
  await toEnd(page);
  await page.waitForTimeout(300);
  const g = FIX.lesson_training_loop.grads;
  assert.deepEqual(await gradTable(page), [
    ['0.weight.grad', formatValue(g['0.weight'])], ['0.bias.grad', formatValue(g['0.bias'])],
    ['2.weight.grad', formatValue(g['2.weight'])], ['2.bias.grad', formatValue(g['2.bias'])],
  ]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('lesson 2: `a.grad = null` between the two backward passes shows None, and the step says so', async () => {
  const page = await env.page('#lesson=handles');
  await waitForRun(page);
  const slider = page.getByRole('slider', { name: 'Scrub through the trace' });
  await slider.focus();
  // Step forward until the step text reports the assignment (a few dozen steps at most).
  let text = '';
  for (let i = 0; i < 40 && !/^a\.grad set to None/.test(text); i++) {
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(50);
    text = (await page.locator('#step-text').textContent()).trim();
  }
  assert.match(text, /^a\.grad set to None: the next backward that writes a\.grad starts from nothing instead of adding to the old value\./);
  const table = Object.fromEntries(await gradTable(page));
  assert.equal(table['a.grad'], 'None', 'set to None by the program');
  assert.equal(table['b.grad'], '12.', 'still the first pass\'s: by hand, b.grad = a · (dE/dc + 2) = 2 · (4 + 2) = 12');
  assert.deepEqual(page.errors, []);
  await page.close();
});
