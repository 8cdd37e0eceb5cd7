// The embed page renders graph + player for a lesson link.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setup, SHOTS } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('embed.html#lesson=legacy-hook shows the graph and plays', async () => {
  const page = await env.browser.newPage({ viewport: { width: 700, height: 460 } });
  const errors = []; page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.url}embed.html#lesson=legacy-hook&program=1`);
  await page.waitForFunction(() => document.querySelectorAll('[data-node]').length > 3, null, { timeout: 15000 });
  assert.match(await page.locator('.embed-title').textContent(), /Why the legacy module backward hook lies/);
  await page.getByRole('slider', { name: 'Scrub through the trace' }).focus();
  await page.keyboard.press('End');
  assert.match(await page.locator('#step-count').textContent(), /^(\d+) \/ \1$/);
  assert.ok(await page.locator('.hookrow.legacy').count() >= 1);
  assert.equal(await page.getByText('Program', { exact: true }).count(), 1);
  assert.match(await page.getByRole('group', { name: 'Hook comparison' }).textContent(), /\(4\., 6\.\).*\(12\., 8\., 6\.\)/);
  await page.getByRole('button', { name: 'Show the node the Legacy backward hook on Mul3 is attached to' }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(SHOTS, 'embed-legacy-hook.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('dark mode follows prefers-color-scheme', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  await page.goto(`${env.url}#lesson=tensor-hooks`);
  await page.waitForFunction(() => !document.getElementById('run-btn').disabled && document.getElementById('step-count').textContent !== '0 / 0', null, { timeout: 15000 });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(14, 17, 23)');
  await page.getByRole('slider', { name: 'Scrub through the trace' }).focus();
  await page.keyboard.press('End');
  await page.screenshot({ path: path.join(SHOTS, 'dark-lesson-01-tensor-hooks.png') });
  await page.close();
});
