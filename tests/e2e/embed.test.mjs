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
  assert.ok(await page.locator('.has-legacy').count() >= 1);
  assert.equal(await page.getByText('Program', { exact: true }).count(), 1);
  assert.match(await page.getByRole('group', { name: 'Hook comparison' }).textContent(), /\(4\., 6\.\).*\(12\., 8\., 6\.\)/);
  await page.getByRole('button', { name: 'Show the node the legacy hook is attached to' }).click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(SHOTS, 'embed-legacy-hook.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('dark mode follows prefers-color-scheme', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  await page.goto(`${env.url}playground.html#lesson=tensor-hooks`);
  await page.waitForFunction(() => !document.getElementById('run-btn').disabled && document.getElementById('step-count').textContent !== '0 / 0', null, { timeout: 15000 });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(14, 17, 23)');
  await page.getByRole('slider', { name: 'Scrub through the trace' }).focus();
  await page.keyboard.press('End');
  await page.screenshot({ path: path.join(SHOTS, 'dark-lesson-01-tensor-hooks.png') });
  await page.close();
});

test('<hookgrad-playground> custom element embeds a lesson', async () => {
  const page = await env.browser.newPage({ viewport: { width: 760, height: 560 } });
  const errors = []; page.on('pageerror', (e) => errors.push(e.message));
  // A blog page on the same server that includes the element script.
  await page.route(`${env.url}blog.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><h1>My post</h1><script type="module" src="./hookgrad-element.js"></script><hookgrad-playground lesson="inplace" height="440"></hookgrad-playground>' }));
  await page.goto(`${env.url}blog.html`);
  const frame = page.frameLocator('hookgrad-playground iframe');
  await frame.locator('[data-node]').first().waitFor({ timeout: 15000 });
  assert.match(await frame.locator('.embed-title').textContent(), /in-place hook hazard/);
  assert.deepEqual(errors, []);
  await page.close();
});
