// Runaway and throwing hooks recover; user text is shown as text; bad links fall back.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, waitForRun, toEnd, gradOf, consoleText } from './helpers.mjs';
import { encodeState } from '../../web/src/model/state.js';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const scenario = (program) => encodeState({ program, semantics: 'pytorch-2', lesson: null });

test('an endless loop in a hook is stopped, and the page runs again', async () => {
  const program = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = a.mul(3); b.name = 'b';
b.registerHook(function spin(g) { while (true) {} });
b.backward();`;
  const page = await env.linkedPage(scenario(program));
  await page.waitForFunction(() => /Stopped: the program was still running/.test(document.body.textContent), null, { timeout: 15000 });
  assert.equal(await page.getByRole('button', { name: 'Step', exact: true }).isEnabled(), true, 'page still usable');
  await page.getByRole('combobox', { name: 'Lesson' }).selectOption('inplace');
  await waitForRun(page);
  await toEnd(page);
  assert.equal(await gradOf(page, 'd'), '100.');
  await page.close();
});

test('a throwing hook shows its message on its node and in the console', async () => {
  const program = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const c = a.mul(3); c.name = 'c';
c.registerHook(function broken(g) { throw new Error('my hook broke'); });
c.backward();`;
  const page = await env.linkedPage(scenario(program));
  await waitForRun(page);
  await toEnd(page);
  assert.match(await consoleText(page), /my hook broke/);
  assert.match(await page.locator('#step-text').textContent(), /my hook broke/);
  await page.waitForFunction(() => [...document.querySelectorAll('.pin.error')].some((p) => /my hook broke/.test(p.textContent)), null, { timeout: 3000 });
  await page.getByRole('combobox', { name: 'Lesson' }).selectOption('tensor-hooks');
  await waitForRun(page); await toEnd(page);
  assert.equal(await gradOf(page, 'a'), '30.');
  await page.close();
});

test('text from user code is never HTML', async () => {
  const program = `const a = hg.tensor(2, { requiresGrad: true, name: '<img src=x onerror=alert(1)>' });
console.log('<b id="inj">bold?</b>');
a.mul(2).backward();`;
  const page = await env.linkedPage(scenario(program));
  await waitForRun(page); await toEnd(page);
  assert.equal(await page.locator('#inj').count(), 0);
  assert.equal(await page.locator('img').count(), 0);
  assert.match(await consoleText(page), /<b id="inj">bold\?<\/b>/);
  assert.ok(await page.locator('[data-tensor]', { hasText: '<img src=x' }).count() >= 1);
  await page.close();
});

test('a malformed or oversized link shows a message and opens the default lesson', async () => {
  for (const hash of ['#s=not-valid-base64!!', `#s=${'A'.repeat(70000)}`, '#lesson=nope']) {
    const page = await env.page(hash);
    await waitForRun(page);
    assert.match(await page.getByRole('alert').textContent(), /Opening the first lesson/);
    assert.equal(await page.getByRole('combobox', { name: 'Lesson' }).inputValue(), 'tensor-hooks');
    await page.close();
  }
});

test('Copy link state round-trips: program, semantics and step', async () => {
  const page = await env.page('#lesson=inplace');
  await waitForRun(page);
  await page.getByRole('radio', { name: 'PyTorch 1.x' }).check();
  await waitForRun(page); await page.waitForTimeout(400);
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForTimeout(500);
  const href = page.url();
  assert.match(href, /#s=/);
  const page2 = await env.page(href.slice(href.indexOf('#')));
  await waitForRun(page2);
  assert.equal(await page2.getByRole('radio', { name: 'PyTorch 1.x' }).isChecked(), true);
  assert.equal(await page2.locator('#step-count').textContent(), await page.locator('#step-count').textContent());
  assert.match(await page2.locator('.cm-content').textContent(), /grad\.mul_\(100\)/);
  await page.close(); await page2.close();
});
