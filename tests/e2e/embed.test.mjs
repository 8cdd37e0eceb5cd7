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
  await page.route(`${env.url}blog.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><h1>My post</h1><script type="module" src="./hookgrad-element.js"></script><hookgrad-playground lesson="inplace"></hookgrad-playground>' }));
  await page.goto(`${env.url}blog.html`);
  const frame = page.frameLocator('hookgrad-playground iframe');
  await frame.locator('[data-node]').first().waitFor({ timeout: 15000 });
  assert.match(await frame.locator('.embed-title').textContent(), /in-place hook hazard/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('#autoplay plays to the end; with prefers-reduced-motion it shows the last step without playing', async () => {
  const moving = await env.browser.newPage({ viewport: { width: 700, height: 480 } });
  await moving.goto(`${env.url}embed.html#lesson=tensor-hooks&autoplay=1`);
  await moving.waitForFunction(() => document.getElementById('play-btn').getAttribute('aria-label') === 'Pause', null, { timeout: 15000 });
  const [k1] = (await moving.locator('#step-count').textContent()).split('/').map(Number);
  await moving.waitForTimeout(2000);
  const [k2, total] = (await moving.locator('#step-count').textContent()).split('/').map(Number);
  assert.ok(k2 > k1 && k2 <= total, `the player advances (${k1} → ${k2} of ${total})`);
  await moving.close();

  const calm = await env.browser.newPage({ viewport: { width: 700, height: 480 }, reducedMotion: 'reduce' });
  await calm.goto(`${env.url}embed.html#lesson=tensor-hooks&autoplay=1`);
  await calm.waitForFunction(() => /^(\d+) \/ \1$/.test(document.getElementById('step-count').textContent) && !/^0 /.test(document.getElementById('step-count').textContent), null, { timeout: 15000 });
  await calm.waitForTimeout(400);
  assert.equal(await calm.locator('#play-btn').getAttribute('aria-label'), 'Play', 'not playing');
  await calm.close();
});

test('#theme=light wins over a dark system setting, #theme=dark over a light one', async () => {
  const dark = await env.browser.newPage({ viewport: { width: 700, height: 480 }, colorScheme: 'dark' });
  await dark.goto(`${env.url}embed.html#lesson=handles&theme=light`);
  await dark.waitForFunction(() => document.getElementById('step-count').textContent !== '0 / 0', null, { timeout: 15000 });
  assert.equal(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(244, 245, 249)');
  await dark.close();
  const light = await env.browser.newPage({ viewport: { width: 700, height: 480 }, colorScheme: 'light' });
  await light.goto(`${env.url}embed.html#lesson=handles&theme=dark`);
  await light.waitForFunction(() => document.getElementById('step-count').textContent !== '0 / 0', null, { timeout: 15000 });
  assert.equal(await light.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(14, 17, 23)');
  await light.close();
});

test('an unknown lesson reaches the host as an error event, and the first lesson is shown', async () => {
  const page = await env.browser.newPage({ viewport: { width: 760, height: 700 } });
  await page.route(`${env.url}bad.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><script type="module" src="./hookgrad-element.js"></script><hookgrad-playground lesson="no-such-lesson"></hookgrad-playground><script>window.errs = []; document.querySelector("hookgrad-playground").addEventListener("error", (e) => window.errs.push(e.detail.message));</script>' }));
  await page.goto(`${env.url}bad.html`);
  await page.waitForFunction(() => window.errs.length > 0, null, { timeout: 15000 });
  assert.match((await page.evaluate(() => window.errs))[0], /Showing the first lesson/);
  await page.close();
});

/** The running node / focused tensor of the shown step, and whether it lies inside the graph pane. */
async function focusInView(page) {
  return page.evaluate(() => {
    const pane = document.querySelector('.graph-box').getBoundingClientRect();
    const els = [...document.querySelectorAll('#graph .bnode.running, #graph .tensor.focus, #graph .merged.running, #graph .merged.focus')];
    return els.map((g) => {
      const r = g.getBoundingClientRect();
      return { label: g.getAttribute('aria-label'), inside: r.left >= pane.left - 1 && r.top >= pane.top - 1 && r.right <= pane.right + 1 && r.bottom <= pane.bottom + 1 };
    });
  });
}

test('an embed opened at #step=N shows that step: the module hiding its node is expanded and the node is in view', async () => {
  const open = async (hash) => {
    const page = await env.browser.newPage({ viewport: { width: 700, height: 480 } });
    page.errors = []; page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(`${env.url}embed.html#lesson=legacy-hook${hash}`);
    await page.waitForFunction(() => document.getElementById('step-count').textContent !== '0 / 0' && !document.body.classList.contains('busy'), null, { timeout: 15000 });
    await page.waitForTimeout(500);
    return page;
  };
  // Without a step: at 700×480 some modules start collapsed; find a backward step whose node sits inside one
  // in the first view's layout (plain data of the run).
  const first = await open('');
  assert.ok(await first.locator('#graph .placeholder').count() >= 1, 'the first view collapses a module');
  const total = Number((await first.locator('#step-count').textContent()).split('/')[1]);
  const k = await first.evaluate(() => {
    const c = globalThis.hookgradController; const { model, input } = c.session;
    for (let k = model.forwardEnd + 1; k <= model.steps.length; k++) {
      const s = model.steps[k - 1]; const unit = s.focus.node != null ? input.unitOfNode[s.focus.node] : null;
      if (s.event.type === 'node' && input.units.find((u) => u.id === unit)?.placeholder) return k;
    }
    return null;
  });
  assert.ok(k, 'a backward step runs a node inside a collapsed module of the first view');
  // Stepping there opens that module: the running node is drawn (issue 32).
  await first.evaluate((k) => { const s = document.getElementById('scrub'); s.value = String(k); s.dispatchEvent(new Event('input')); }, k);
  await first.waitForFunction(() => !globalThis.hookgradController.revealing && document.querySelectorAll('#graph .running').length > 0, null, { timeout: 5000 });
  const hidden = { k, text: await first.locator('#step-text').textContent() };
  assert.deepEqual(first.errors, []);
  await first.close();

  const page = await open(`&step=${hidden.k}`);
  assert.equal(await page.locator('#step-count').textContent(), `${hidden.k} / ${total}`);
  assert.equal(await page.locator('#step-text').textContent(), hidden.text, 'the same step is shown');
  const focus = await focusInView(page);
  assert.ok(focus.length >= 1, 'the step\'s node or tensor is drawn');
  assert.ok(await page.locator('#graph .running').count() >= 1, 'the running node is drawn (its module expanded)');
  assert.deepEqual(focus.filter((f) => !f.inside), [], 'and it is inside the pane');
  await page.screenshot({ path: path.join(SHOTS, 'embed-700x480-legacy-hook-at-step.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});
