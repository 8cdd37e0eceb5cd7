// A ~500-node graph lays out off the main thread and the page stays responsive.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, waitForRun } from './helpers.mjs';
import { encodeState } from '../../web/src/model/state.js';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('250 chained ops (≈500 tensors + nodes) render; the main thread keeps ticking', async () => {
  const program = `let x = hg.tensor(1, { requiresGrad: true, name: 'x0' });
for (let i = 1; i <= 250; i++) { x = x.mul(1.001); x.name = 'x' + i; }
x.backward();`;
  const page = await env.page(encodeState({ program, semantics: 'pytorch-2', lesson: null }));
  // Measure the longest gap between main-thread timer ticks while the page works.
  await page.evaluate(() => { window.__gaps = []; let t = performance.now(); window.__tick = setInterval(() => { const n = performance.now(); window.__gaps.push(n - t); t = n; }, 20); });
  await waitForRun(page, 30000);
  const maxGap = await page.evaluate(() => { clearInterval(window.__tick); return Math.max(...window.__gaps); });
  assert.ok(await page.locator('[data-node]').count() >= 250);
  assert.ok(await page.locator('[data-tensor]').count() >= 250);
  console.log(`# longest main-thread gap: ${Math.round(maxGap)} ms`);
  assert.ok(maxGap < 2500, `main thread blocked for ${Math.round(maxGap)} ms`);
  await page.close();
});
