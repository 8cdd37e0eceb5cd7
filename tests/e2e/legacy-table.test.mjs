// Lesson 5's table: each input of Mul3 with its true gradient, the full
// backward hook's and the legacy hook's report, right/wrong, visible without
// scrolling at 1280×800. Expected values: real PyTorch (tests/fixtures/pytorch.json:
// module_legacy_Mul3, module_full_backward_Mul3).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, waitForRun, toEnd, ROOT } from './helpers.mjs';

const FIX = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'pytorch.json'), 'utf8')).scenarios;
const legacy = FIX.module_legacy_Mul3; const full = FIX.module_full_backward_Mul3;

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const num = (s) => Number.parseFloat(s.replace(/[^\d.eE+-].*$/, ''));

async function tableRows(page) {
  return page.getByRole('table', { name: 'Each input: true gradient, full hook, legacy hook' }).locator('tbody tr').evaluateAll((trs) => trs.map((tr) => {
    const [name, ...cells] = [...tr.children];
    return { name: name.textContent.trim(), cells: cells.map((c) => ({ text: c.textContent.trim(), cls: c.className })) };
  }));
}

/** True when el lies inside the viewport (no scrolling needed) and inside its scrolling pane. */
async function visible(page, selector) {
  return page.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect(); const pane = el.closest('.lesson-pane').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth && r.top >= pane.top - 1 && r.bottom <= pane.bottom + 1 && r.height > 0;
  });
}

test('before Backward the table says what it is about to compare, without scrolling', async () => {
  const page = await env.page('#lesson=legacy-hook');
  await waitForRun(page);
  const caption = await page.locator('.legacy-table caption').textContent();
  assert.match(caption, /Press Backward/);
  assert.match(caption, /true gradient/); assert.match(caption, /full and the legacy backward hook/);
  const rows = await tableRows(page);
  assert.deepEqual(rows.map((r) => r.name), ['p', 'q', 'r'], 'one row per input of the module, in order');
  for (const r of rows) assert.deepEqual(r.cells.map((c) => c.text), ['?', '?', '?']);
  assert.ok(await visible(page, '.legacy-table'), 'the table is in view at 1280×800');
  await page.close();
});

test('after Backward: true .grad, full hook and legacy hook match PyTorch, marked right/wrong, in view', async () => {
  const page = await env.page('#lesson=legacy-hook');
  await waitForRun(page);
  await page.getByRole('button', { name: 'Backward', exact: true }).click();
  await toEnd(page);
  await page.waitForTimeout(300);
  const rows = await tableRows(page);
  assert.equal(rows.length, legacy.input_grads.length);
  rows.forEach((r, i) => {
    const [truth, fullCell, legacyCell] = r.cells;
    assert.equal(num(truth.text), legacy.input_grads[i], `${r.name}.grad`);
    assert.equal(num(fullCell.text), full.grad_input[i], `full hook, ${r.name}`);
    assert.match(fullCell.cls, /\bright\b/); assert.match(fullCell.text, /✓/);
    if (i < legacy.len_grad_input) assert.equal(num(legacyCell.text), legacy.grad_input[i], `legacy hook, ${r.name}`);
    else assert.match(legacyCell.text, /^—/, `legacy hook has no value for ${r.name}`);
    assert.equal(/\bright\b/.test(legacyCell.cls), legacy.grad_input[i] === legacy.input_grads[i], `legacy ${r.name} marked ${legacyCell.cls}`);
  });
  // Whose gradients the legacy values really are: the inputs of the node it sits on.
  assert.match(rows[0].cells[2].text, /x·y’s/); assert.match(rows[1].cells[2].text, /r’s/);
  const foot = await page.locator('.legacy-foot').textContent();
  assert.match(foot, new RegExp(`\\(${legacy.grad_input.map((v) => `${v}\\.`).join(', ')}\\): ${legacy.len_grad_input} values for ${legacy.input_grads.length} inputs`));
  assert.match(foot, /whose inputs are x·y and r/);
  for (const sel of ['.legacy-table', '.legacy-foot']) assert.ok(await visible(page, sel), `${sel} in view at 1280×800`);
  // The node the legacy hook sits on is highlighted in the figure and in view.
  const node = await page.evaluate(() => {
    const g = [...document.querySelectorAll('#graph .bnode.has-legacy, #graph .has-legacy')].find((e) => /out/.test(e.getAttribute('aria-label') || ''));
    if (!g) return null;
    const r = g.getBoundingClientRect(); const p = document.querySelector('.graph-box').getBoundingClientRect();
    return { label: `${g.getAttribute('aria-label')} ${g.getAttribute('aria-description') || ''}`, inside: r.left >= p.left - 1 && r.right <= p.right + 1 && r.top >= p.top - 1 && r.bottom <= p.bottom + 1 };
  });
  assert.ok(node, 'a highlighted node of out');
  assert.match(node.label, new RegExp(legacy.node));
  assert.ok(node.inside, `${node.label} in view`);
  await page.getByRole('button', { name: 'Show the node the legacy hook is attached to' }).click();
  assert.match(await page.getByRole('heading', { level: 3 }).textContent(), new RegExp(legacy.node));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the backward-done summary lists every leaf .grad and the hooks in firing order', async () => {
  const page = await env.page('#lesson=legacy-hook');
  await waitForRun(page);
  await toEnd(page);
  const text = await page.locator('#step-text').textContent();
  assert.match(text, /^Backward done\./);
  // Every leaf: p, q, r from PyTorch's fixture; a, b from Mul2's; u, v, w from the full hook's.
  const expect = { p: legacy.input_grads[0], q: legacy.input_grads[1], r: legacy.input_grads[2],
    a: FIX.module_legacy_Mul2.input_grads[0], b: FIX.module_legacy_Mul2.input_grads[1], u: full.grads[0], v: full.grads[1], w: full.grads[2] };
  for (const [name, v] of Object.entries(expect)) assert.match(text, new RegExp(`\\b${name} = ${v}\\.`), `${name}.grad in the summary`);
  const order = [...text.matchAll(/\d+\. (\w+) \((\w+)\)/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(order, ['legacyHook Mul2', 'legacyHook Mul3', 'fullHook Mul3']);
  await page.close();
});
