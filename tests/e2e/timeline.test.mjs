// The hook timeline in the page (view/timeline-view.js): its marks are the
// trace's hook and .grad events in the trace's order for every lesson under
// both semantics; the PyTorch 2 / 1.x switch reorders them; the player's step
// is its cursor, a click or Enter on a mark steps there, the keyboard moves
// through the marks; labels stay ≥ 11 px at 700 and 390 px; embeds show it
// with #timeline=1. Screenshots go to docs/screenshots/timeline-*.png.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, waitForRun, toEnd, steps, SHOTS } from './helpers.mjs';
import { LESSONS } from '../../web/src/model/lessons.js';

let env;
before(async () => { env = await setup(); fs.mkdirSync(SHOTS, { recursive: true }); });
after(async () => { await env?.close(); });

/** Opens the timeline as a reader does (closed at first where the window is under 900 px tall, to leave the figure its room). */
async function openTimeline(page) {
  if (!(await page.evaluate(() => document.getElementById('timeline-box').open))) await page.click('#timeline-box summary');
  await page.waitForSelector('#timeline .mk, #timeline .tl-empty');
}

/** Waits for a run that started after `before` (the previous session) to finish. */
async function waitForNewRun(page, prevId) {
  await page.waitForFunction((prev) => {
    const c = globalThis.hookgradController;
    return c?.session && c.session.runId !== prev && !document.body.classList.contains('busy') && (!document.getElementById('timeline-box').open || document.querySelector('#timeline .mk, #timeline .tl-empty'));
  }, prevId, { timeout: 90000 });
  return page.evaluate(() => { const s = globalThis.hookgradController.session; s.runId ??= Math.random(); return s.runId; });
}

/** The marks' steps as drawn (DOM order) and the trace's hook / accumulate / grad-set indices from the figure's first step. */
const drawnAndTraced = (page) => page.evaluate(() => {
  const { model } = globalThis.hookgradController.session;
  const traced = model.trace.map((ev, i) => (i >= (model.figureStart || 0) && (ev.type === 'hook' || ev.type === 'accumulate' || ev.type === 'grad-set') ? i : -1)).filter((i) => i >= 0);
  const drawn = [...document.querySelectorAll('#timeline .mk')].map((b) => Number(b.dataset.step));
  const columns = [...document.querySelectorAll('#timeline .mk')].map((b) => b.getBoundingClientRect().left);
  return { traced, drawn, leftToRight: columns.every((x, i) => i === 0 || x > columns[i - 1]) };
});

test('every lesson, both semantics: the timeline\'s marks, left to right, are the trace\'s hook and .grad events in order', { timeout: 900000 }, async () => {
  const page = await env.page(`#lesson=${LESSONS[0].id}`);
  let id = await waitForNewRun(page, null);
  await openTimeline(page);
  const shown = () => page.evaluate(() => { const s = globalThis.hookgradController.getSource(); return `${s.lesson?.id} ${s.semantics}`; });
  for (const semantics of ['pytorch-2', 'pytorch-1']) {
    if (semantics === 'pytorch-1') { await page.check('input[name=semantics][value=pytorch-1]'); id = await waitForNewRun(page, id); }
    for (const lesson of LESSONS) {
      // A lesson opens under the semantics the page has.
      if (!(await shown()).startsWith(`${lesson.id} `)) { await page.selectOption('#lesson-select', lesson.id); id = await waitForNewRun(page, id); }
      assert.equal(await shown(), `${lesson.id} ${semantics}`);
      const { traced, drawn, leftToRight } = await drawnAndTraced(page);
      // no-grad-hooks records no graph; inplace-after-hook stops at PyTorch's error before backward.
      assert.ok(traced.length > 0 || ['no-grad-hooks', 'inplace-after-hook'].includes(lesson.id), `${lesson.id} ${semantics}: hooks fire`);
      assert.deepEqual(drawn, traced, `${lesson.id} ${semantics}`);
      assert.ok(leftToRight, `${lesson.id} ${semantics}: marks stand left to right in trace order`);
    }
  }
  assert.deepEqual(page.errors, []);
});

test('closed where the window is short, open where it is tall; the reader\'s choice is kept', { timeout: 120000 }, async () => {
  const short = await env.page('#lesson=tensor-hooks', { width: 1280, height: 800 });
  await waitForNewRun(short, null);
  assert.equal(await short.evaluate(() => document.getElementById('timeline-box').open), false);
  assert.match(await short.locator('#timeline-count').textContent(), /^\d+ hook firings and \.grad writes/);
  await short.click('#timeline-box summary');
  await short.reload(); await waitForNewRun(short, null);
  assert.equal(await short.evaluate(() => document.getElementById('timeline-box').open), true, 'kept open after a reload');
  await short.close();
  const tall = await env.page('#lesson=tensor-hooks', { width: 1280, height: 1000 });
  await waitForNewRun(tall, null);
  assert.equal(await tall.evaluate(() => document.getElementById('timeline-box').open), true);
  await tall.close();
});

test('1280×800: the switch reorders retain_grad on e; cursor, click and keyboard', { timeout: 240000 }, async () => {
  const page = await env.page('#lesson=tensor-hooks');
  let id = await waitForNewRun(page, null);
  await openTimeline(page);
  await toEnd(page);
  const laneTags = (lane) => page.evaluate((lane) => {
    const row = [...document.querySelectorAll('#timeline .tl-lane')].find((l) => l.textContent === lane).style.gridRow;
    return [...document.querySelectorAll('#timeline .mk')].filter((b) => b.style.gridRow === row).map((b) => b.textContent);
  }, lane);
  // Lesson 1 calls e.retainGrad() before registering `double` on e.
  assert.deepEqual(await laneTags('e'), ['T', 'R'], 'PyTorch 2: retain_grad after the tensor hook');
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1280.png') });
  await page.check('input[name=semantics][value=pytorch-1]');
  id = await waitForNewRun(page, id);
  assert.deepEqual(await laneTags('e'), ['R', 'T'], 'PyTorch 1.x: retain_grad where it was called');
  await page.check('input[name=semantics][value=pytorch-2]');
  id = await waitForNewRun(page, id);

  // Click the third mark: the player steps to it, it is the current mark and the cursor stands after it.
  const mark = page.locator('#timeline .mk').nth(2);
  const step = Number(await mark.getAttribute('data-step'));
  await mark.click();
  const [k] = await steps(page);
  assert.equal(k, step + 1, 'the player shows the frame of that event');
  assert.equal(await mark.getAttribute('aria-current'), 'step');
  assert.match(await page.locator('.tl-detail').textContent(), new RegExp(`^step ${step + 1} · `));
  // Hover another mark: its before → after is shown.
  await page.locator('#timeline .mk').nth(0).hover();
  assert.match(await page.locator('.tl-detail').textContent(), /double on e: 1\. → 2\./);
  // Keyboard: one tab stop; → moves focus to the next mark without stepping, Enter steps.
  await mark.focus();
  await page.keyboard.press('ArrowRight');
  const focused = await page.evaluate(() => document.activeElement.dataset.step);
  assert.equal(Number(focused), Number(await page.locator('#timeline .mk').nth(3).getAttribute('data-step')));
  assert.equal((await steps(page))[0], step + 1, 'arrows in the timeline do not move the player');
  await page.keyboard.press('Enter');
  assert.equal((await steps(page))[0], Number(focused) + 1);
  assert.equal(await page.locator('#timeline .mk[tabindex="0"]').count(), 1, 'one tab stop');
  assert.deepEqual(page.errors, []);
});

for (const [width, height] of [[700, 900], [390, 844]]) {
  test(`${width} px: the timeline is on screen under the player, labels ≥ 11 px, the page does not scroll sideways`, { timeout: 240000 }, async () => {
    const page = await env.page('#lesson=legacy-hook', { width, height });
    await waitForNewRun(page, null);
    await openTimeline(page);
    await toEnd(page);
    const m = await page.evaluate(() => {
      const px = (sel) => [...document.querySelectorAll(sel)].map((e) => parseFloat(getComputedStyle(e).fontSize));
      const player = document.querySelector('.player').getBoundingClientRect(); const tl = document.querySelector('.timeline-pane').getBoundingClientRect();
      return { sizes: [...px('#timeline .mk'), ...px('#timeline .tl-lane'), ...px('#timeline .tl-step')], below: tl.top >= player.bottom - 1, overflow: document.documentElement.scrollWidth - window.innerWidth, lanes: [...document.querySelectorAll('#timeline .tl-lane')].map((l) => l.textContent) };
    });
    assert.ok(m.sizes.length > 0 && Math.min(...m.sizes) >= 11, `labels ≥ 11 px: ${Math.min(...m.sizes)}`);
    assert.ok(m.below, 'the timeline follows the player');
    assert.ok(m.overflow <= 0, `no sideways scroll of the page (${m.overflow} px)`);
    // Two modules named Mul3 (legacy and full): their lanes are told apart.
    assert.ok(m.lanes.includes('Mul3 #1') && m.lanes.includes('Mul3 #2'), m.lanes.join());
    await page.locator('.timeline-pane').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `timeline-${width}.png`) });
    assert.deepEqual(page.errors, []);
  });
}

test('embed: the timeline only on request (#timeline=1), and a mark steps the embed\'s player', { timeout: 240000 }, async () => {
  const page = await env.browser.newPage({ viewport: { width: 700, height: 640 } });
  await page.goto(`${env.url}embed.html#lesson=node-hooks`);
  await waitForRun(page, 90000);
  assert.equal(await page.locator('#timeline').count(), 0, 'no timeline unless asked for');
  await page.goto(`${env.url}embed.html#lesson=node-hooks&timeline=1`);
  await page.reload();
  await waitForRun(page, 90000);
  await page.waitForSelector('#timeline .mk');
  const last = page.locator('#timeline .mk').last();
  await last.click();
  const step = Number(await last.getAttribute('data-step'));
  assert.equal((await steps(page))[0], step + 1);
  await page.screenshot({ path: path.join(SHOTS, 'timeline-embed.png') });
  await page.close();
});
