// Graph and hook edits from the inspector rewrite the program and change results.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, waitForRun, toEnd, gradOf, deselect } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('attaching a hook through the inspector changes the result', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page); await toEnd(page);
  assert.equal(await gradOf(page, 'a'), '300.');
  await page.getByRole('button', { name: 'Tensor c', exact: true }).click();
  await page.getByRole('combobox', { name: 'Hook kind' }).selectOption('tensor');
  await page.getByRole('combobox', { name: 'Hook template' }).selectOption('zero');
  await page.getByRole('button', { name: 'Attach hook' }).click();
  await waitForRun(page); await toEnd(page);
  await deselect(page);
  assert.equal(await gradOf(page, 'a'), '0.', 'c’s gradient was zeroed by the new hook');
  assert.match(await page.locator('.cm-content').textContent(), /c\.registerHook\(function zeroHook\(grad\)/);
  // disable it again from the inspector
  await page.getByRole('button', { name: 'Disable hook h1' }).click();
  await waitForRun(page); await toEnd(page);
  await deselect(page);
  assert.equal(await gradOf(page, 'a'), '300.');
  await page.getByRole('button', { name: 'Delete hook h1' }).click();
  await waitForRun(page);
  assert.doesNotMatch(await page.locator('.cm-content').textContent(), /zeroHook/);
  await page.close();
});

test('changing a leaf value and adding a leaf + op from the graph', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page);
  await page.getByRole('button', { name: 'Tensor b', exact: true }).click();
  await page.getByRole('textbox', { name: 'New value of b' }).fill('5');
  await page.getByRole('button', { name: 'Set value' }).click();
  await waitForRun(page); await toEnd(page);
  await deselect(page);
  assert.equal(await gradOf(page, 'a'), '500.', 'a.grad = 100 · b with b = 5');
  await page.getByRole('textbox', { name: 'Value of the new leaf' }).fill('7');
  await page.getByRole('button', { name: 'Add leaf' }).click();
  await waitForRun(page);
  assert.ok(await page.getByRole('button', { name: 'Tensor x1', exact: true }).count() === 1);
  await page.close();
});

test('a module forward hook attached from the inspector runs before the module is called', async () => {
  const page = await env.page('#lesson=module-forward');
  await waitForRun(page);
  await page.getByRole('combobox', { name: 'Module' }).selectOption('net');
  const form = page.locator('.form', { hasText: 'Attach a module hook' });
  await form.getByRole('combobox', { name: 'Hook kind' }).selectOption('module-forward');
  await form.getByRole('combobox', { name: 'Hook template' }).selectOption('add');
  await form.getByRole('button', { name: 'Attach hook' }).click();
  await waitForRun(page); await toEnd(page);
  const out = await page.getByRole('list', { name: 'Console output' }).textContent();
  assert.match(out, /d = tensor\(126\./);
  assert.match(out, /d2 = tensor\(16\./);
  await page.close();
});

test('editing a hook block with CodeMirror and reordering hooks', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page);
  for (const tpl of ['scale', 'add']) {
    await page.getByRole('button', { name: 'Tensor c', exact: true }).click();
    await page.getByRole('combobox', { name: 'Hook template' }).selectOption(tpl);
    await page.getByRole('button', { name: 'Attach hook' }).click();
    await waitForRun(page);
  }
  await toEnd(page);
  await deselect(page);
  // c's gradient is 100 (in-place hazard): ×2 then +10 → 210; a.grad = 210·3
  assert.equal(await gradOf(page, 'a'), '630.');
  await page.getByRole('button', { name: 'Move hook h2 up' }).click();
  await waitForRun(page); await toEnd(page);
  await deselect(page);
  assert.equal(await gradOf(page, 'a'), '660.', '+10 first, then ×2 → 220');
  await page.getByRole('button', { name: 'Edit hook h1' }).click();
  const ed = page.getByRole('dialog', { name: 'Edit hook h1' });
  await ed.locator('.cm-content').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('const h1 = c.registerHook(function triple(grad) { return grad.mul(3); });');
  await ed.getByRole('button', { name: 'Save hook' }).click();
  await waitForRun(page); await toEnd(page);
  await deselect(page);
  assert.equal(await gradOf(page, 'a'), '990.', '+10 then ×3 → 330');
  await page.getByRole('button', { name: 'Toggle h2.remove()' }).click();
  await waitForRun(page); await toEnd(page);
  await deselect(page);
  assert.equal(await gradOf(page, 'a'), '900.', 'h2.remove() right after registering: only ×3 → 300');
  await page.close();
});

test('wrap an op in a module, collapse and expand the module box', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page);
  await page.getByRole('button', { name: 'Tensor c', exact: true }).click();
  await page.getByRole('button', { name: "Wrap c's op in a module" }).click();
  await waitForRun(page);
  assert.match(await page.locator('.cm-content').textContent(), /new hg\.Module\('Wrap_c', \(a, b\) => a\.mul\(b\)\)/);
  await toEnd(page);
  await page.getByRole('button', { name: 'Fit graph to view' }).click();
  await page.getByRole('button', { name: 'Collapse module Wrap_c' }).click();
  await page.getByRole('button', { name: 'Expand module Wrap_c' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Tensor c', exact: true }).count(), 0);
  await page.getByRole('button', { name: 'Expand module Wrap_c' }).click();
  await page.getByRole('button', { name: 'Tensor c', exact: true }).waitFor();
  await toEnd(page);
  await deselect(page);
  assert.equal(await gradOf(page, 'a'), '300.', 'same numbers inside a module');
  await page.close();
});

test('typing in the program editor and Ctrl+Enter runs it', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page);
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type("\nconsole.log('typed', a.grad);");
  assert.match(await page.locator('#program-status').textContent(), /edited/);
  await page.keyboard.press('Control+Enter');
  await waitForRun(page); await toEnd(page);
  assert.match(await page.getByRole('list', { name: 'Console output' }).textContent(), /typed tensor\(300\.\)/);
  await page.close();
});

test('apply an op to the selected tensor from its inspector', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page);
  await page.getByRole('button', { name: 'Tensor e', exact: true }).click();
  await page.getByRole('combobox', { name: 'Operation' }).selectOption('mul');
  await page.getByRole('combobox', { name: 'Second input' }).selectOption('d');
  await page.getByRole('button', { name: 'Apply op' }).click();
  await waitForRun(page);
  assert.match(await page.locator('.cm-content').textContent(), /const y1 = e\.mul\(d\); y1\.name = 'y1';/);
  assert.equal(await page.getByRole('button', { name: 'Tensor y1', exact: true }).count(), 1);
  await page.close();
});

test('deleting a tensor removes it and what depended on it, and the program still runs', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page);
  await page.getByRole('button', { name: 'Tensor d', exact: true }).click();
  await page.getByRole('button', { name: 'Delete d' }).click();
  await waitForRun(page);
  assert.equal(await page.getByRole('button', { name: 'Tensor d', exact: true }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Tensor e', exact: true }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Tensor c', exact: true }).count(), 1);
  assert.doesNotMatch(await page.locator('#program-status').textContent(), /error/);
  assert.doesNotMatch(await page.locator('.cm-content').textContent(), /dHook/);
  await page.close();
});
