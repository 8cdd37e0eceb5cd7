// The learner's loop around the figure: Tab leaves the editor, the camera
// keeps the tensor whose .grad just changed in view, Stop ends a runaway run.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, waitForRun } from './helpers.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

test('keyboard: Tab leaves the program editor without editing it', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  const before = await page.locator('.cm-content').textContent();
  await page.locator('.cm-content').click();
  await page.keyboard.press('Tab');
  const inEditor = await page.evaluate(() => !!document.activeElement.closest('.cm-editor'));
  assert.equal(inEditor, false, 'focus left the editor');
  assert.equal(await page.locator('.cm-content').textContent(), before, 'Tab did not indent');
  assert.notEqual(await page.locator('#program-status').textContent(), 'edited — Run to apply');
  await page.close();
});

test('camera: the tensor whose .grad changed is in view at every backward step', async () => {
  for (const lesson of ['tensor-hooks', 'adjoint', 'legacy-hook']) {
    const page = await env.page(`#lesson=${lesson}`);
    await waitForRun(page);
    const [k0, total] = (await page.locator('#step-count').textContent()).split('/').map(Number);
    let checked = 0;
    for (let k = k0; k < total; k++) {
      await page.getByRole('button', { name: 'Step', exact: true }).click();
      await page.waitForTimeout(420); // smooth pan
      const r = await page.evaluate(() => {
        const g = document.querySelector('#graph .tensor.changed');
        if (!g) return null;
        const a = g.getBoundingClientRect(); const p = document.querySelector('.graph-box').getBoundingClientRect();
        return { inside: a.left >= p.left - 1 && a.top >= p.top - 1 && a.right <= p.right + 1 && a.bottom <= p.bottom + 1, name: g.getAttribute('aria-label') };
      });
      if (r) { checked++; assert.ok(r.inside, `${lesson} step ${k + 1}: ${r.name} in view`); }
    }
    assert.ok(checked >= 2, `${lesson}: .grad changed at ${checked} steps`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('Stop ends a runaway program and says so', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\nwhile (true) {}\n');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('button', { name: 'Stop the running program' }).click();
  await page.waitForFunction(() => /Stopped: you pressed Stop/.test(document.body.textContent), null, { timeout: 3000 });
  assert.equal(await page.getByRole('button', { name: 'Run', exact: true }).isEnabled(), true);
  await page.close();
});

test('a forward-only lesson says there is no backward to play', async () => {
  const page = await env.page('#lesson=module-forward');
  await waitForRun(page);
  assert.match(await page.locator('#step-text').textContent(), /no backward pass to play/);
  await page.close();
});

test('the full backward hook row lights up when it fires', { todo: 'needs the engine to record the wrapper rows\' user-visible handle (seam helper, issue 8 item 9); until then the row is matched by a guess' }, async () => {
  const page = await env.page('#lesson=legacy-hook');
  await waitForRun(page);
  await page.getByRole('slider', { name: 'Scrub through the trace' }).focus();
  await page.keyboard.press('End');
  assert.ok(await page.locator('.badge-row.fullhook.fired').count() >= 1);
  await page.close();
});

test('export: the current frame downloads as SVG and PNG', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  const [svgDl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download this frame as SVG' }).click()]);
  const svgText = await (await import('node:fs/promises')).readFile(await svgDl.path(), 'utf8');
  assert.match(svgText, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svgText, /MulBackward0/);
  const [pngDl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download this frame as PNG' }).click()]);
  const png = await (await import('node:fs/promises')).readFile(await pngDl.path());
  assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]);
  assert.ok(png.length > 5000, `PNG of ${png.length} bytes`);
  await page.close();
});
