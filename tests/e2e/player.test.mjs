// Player controls: step, step back, scrub, keyboard, play/pause; every control has a name.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, waitForRun, steps, gradOf } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('Run stops before backward; step, step back and scrub move through the trace', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  const [k0, total] = await steps(page);
  assert.ok(total > k0 && k0 > 0, `forward part shown after Run (${k0}/${total})`);
  assert.equal(await gradOf(page, 'a'), 'None');
  const step = page.getByRole('button', { name: 'Step', exact: true });
  await step.click(); await step.click();
  assert.deepEqual(await steps(page), [k0 + 2, total]);
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.deepEqual(await steps(page), [k0 + 1, total]);
  const scrub = page.getByRole('slider', { name: 'Scrub through the trace' });
  await scrub.fill(String(total));
  assert.deepEqual(await steps(page), [total, total]);
  assert.equal(await gradOf(page, 'a'), '30.');
  await scrub.fill('0');
  assert.equal(await gradOf(page, 'a'), 'None', 'scrubbing back clears .grad again');
  assert.match(await page.locator('#step-text').textContent(), /nothing has run yet/);
  await page.close();
});

test('keyboard: → steps, ← steps back, space plays and pauses', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  const [k0] = await steps(page);
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('ArrowRight'); await page.keyboard.press('ArrowRight');
  assert.equal((await steps(page))[0], k0 + 2);
  await page.keyboard.press('ArrowLeft');
  assert.equal((await steps(page))[0], k0 + 1);
  await page.keyboard.press(' ');
  await page.waitForTimeout(1300);
  await page.keyboard.press(' ');
  const k = (await steps(page))[0];
  assert.ok(k > k0 + 1, `space played (${k})`);
  await page.waitForTimeout(1200);
  assert.equal((await steps(page))[0], k, 'space paused');
  await page.close();
});

test('Backward plays with the running node highlighted and hook values shown', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('4');
  await page.getByRole('button', { name: 'Backward', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('.bnode.running'), null, { timeout: 5000 });
  await page.waitForFunction(() => { const [k, n] = document.getElementById('step-count').textContent.split('/').map(Number); return k === n; }, null, { timeout: 15000 });
  assert.ok(await page.locator('.badge-row.fired, .merged.hook-fired').count() >= 4);
  assert.match(await page.locator('[data-tensor]', { hasText: 'addHundred' }).textContent(), /12\. → 112\./);
  await page.close();
});

test('every button, select, input and slider has an accessible name', async () => {
  const page = await env.page('#lesson=legacy-hook');
  await waitForRun(page);
  const unnamed = await page.evaluate(() => [...document.querySelectorAll('button, select, input, [role=button], [role=slider]')]
    .filter((el) => el.offsetParent !== null || el.closest('svg'))
    .filter((el) => {
      const label = el.getAttribute('aria-label') || el.labels?.[0]?.textContent || el.textContent;
      return !label || !label.trim();
    }).map((el) => el.outerHTML.slice(0, 80)));
  assert.deepEqual(unnamed, []);
  await page.close();
});
