// Every text of the figure reads (issue 32's last gap): at 1280×800 in every
// lesson (first view, a step of the backward pass, the last step), and in a
// sample at 700×500, on a phone (390×844) and in 400- and 700-px embeds, the
// smallest text drawn in the graph pane renders at ≥ 11 px on screen.
//
// The floor is the page's own small print (11 px: notes, legends, the
// timeline), the size a reader is already asked to read. "On screen" is the
// text's computed font size times the SVG's current scale (getScreenCTM: the
// camera's transform, so it holds at any zoom), for every <text> whose box
// meets the pane; text outside the pane is not on screen.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './helpers.mjs';
import { LESSONS } from '../../web/src/model/lessons.js';

const FLOOR = 11;
let env; let page;
before(async () => {
  env = await setup();
  // Reduced motion: the camera jumps instead of gliding, so a step is measured right after its frame.
  page = await env.browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', reducedMotion: 'reduce' });
  page.errors = []; page.on('pageerror', (e) => page.errors.push(e.message));
});
after(async () => { await env?.close(); });

/** Two animation frames: the view writes the DOM once per frame. */
const frames = (p) => p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** The smallest on-screen font of the figure's texts in the pane: { px, text, n, clamped }. */
export async function smallestText(p, svgSel = '#graph') {
  await frames(p);
  return p.evaluate((sel) => {
    const svg = document.querySelector(sel); const pane = svg.getBoundingClientRect();
    let min = { px: Infinity, text: '' }; let n = 0;
    for (const t of svg.querySelectorAll('.viewport text')) {
      const r = t.getBoundingClientRect();
      if (!r.width || !r.height || r.right <= pane.left || r.left >= pane.right || r.bottom <= pane.top || r.top >= pane.bottom) continue;
      const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a; n++;
      if (px < min.px) min = { px, text: `${t.getAttribute('class') || t.parentElement.getAttribute('class')}: ${t.textContent}` };
    }
    return { ...min, n, clamped: svg.dataset.clamped === 'true' };
  }, svgSel);
}

/** Opens a lesson in the playground by its link (hashchange) and waits for its new run. */
async function openLesson(p, id) {
  await p.evaluate((h) => { globalThis.__oldSession = globalThis.hookgradController?.session || null; location.hash = h; }, `#lesson=${id}`);
  await p.waitForFunction(() => {
    const c = globalThis.hookgradController;
    return c?.session && c.session !== globalThis.__oldSession && !document.body.classList.contains('busy') && document.getElementById('step-count').textContent !== '0 / 0';
  }, null, { timeout: 20000 });
}

async function seekKey(p, key, times = 1) {
  await p.getByRole('slider', { name: 'Scrub through the trace' }).focus();
  for (let i = 0; i < times; i++) await p.keyboard.press(key);
}

function check(m, where) {
  assert.ok(m.n > 0, `${where}: the figure shows text`);
  assert.ok(m.px >= FLOOR - 0.01, `${where}: smallest text ${m.px.toFixed(2)} px (${m.text})`);
}

test('1280×800: every lesson\'s figure text ≥ 11 px at its first view, mid-backward and at the end', async () => {
  await page.goto(`${env.url}playground.html#lesson=${LESSONS[0].id}`);
  const partial = [];
  for (const l of LESSONS) {
    await openLesson(page, l.id);
    const first = await smallestText(page); check(first, `lesson ${l.n} first view`);
    if (first.clamped) partial.push(l.n);
    await seekKey(page, 'End'); check(await smallestText(page), `lesson ${l.n} last step`);
    // A quarter of the way back from the end (at most 30 steps): the backward pass, a module opened, badges filled.
    const [, total] = (await page.locator('#step-count').textContent()).split('/').map(Number);
    await seekKey(page, 'ArrowLeft', Math.min(30, Math.floor(total / 4)));
    check(await smallestText(page), `lesson ${l.n} mid-backward`);
  }
  // Every lesson's first view shows its whole figure at 1280×800 (none needs the clamp there).
  assert.deepEqual(partial, [], 'lessons shown in part at 1280×800');
  assert.deepEqual(page.errors, []);
});

for (const [w, h, ids] of [[700, 500, ['tensor-hooks', 'legacy-hook', 'adjoint', 'capture', 'gradient-penalty', 'training-loop']], [390, 844, ['tensor-hooks', 'legacy-hook', 'adjoint', 'training-loop', 'legacy-or-full']]]) {
  test(`${w}×${h} playground: figure text ≥ 11 px in a sample of lessons (first view and end)`, async () => {
    await page.setViewportSize({ width: w, height: h });
    for (const id of ids) {
      await openLesson(page, id);
      check(await smallestText(page), `${id} first view`);
      await seekKey(page, 'End');
      check(await smallestText(page), `${id} last step`);
    }
    assert.deepEqual(page.errors, []);
  });
}

// embed.html reads its hash once: a page per embed. 400 px is the 700×480
// iframe of EMBED.md shrunk to a blog column (max-width: 100%).
for (const [w, h] of [[400, 480], [700, 480]]) {
  test(`${w}×${h} embed: figure text ≥ 11 px (flagship step by step, two more lessons), no minimap over the figure`, async () => {
    const ep = await env.browser.newPage({ viewport: { width: w, height: h }, colorScheme: 'light', reducedMotion: 'reduce' });
    const errors = []; ep.on('pageerror', (e) => errors.push(e.message));
    for (const id of ['legacy-hook', 'tensor-hooks', 'adjoint']) {
      await ep.goto(`${env.url}embed.html#lesson=${id}`);
      await ep.waitForFunction(() => document.getElementById('step-count').textContent !== '0 / 0' && !document.body.classList.contains('busy'), null, { timeout: 20000 });
      check(await smallestText(ep), `${id} first view`);
      const visibleMinimap = await ep.evaluate(() => [...document.querySelectorAll('.minimap')].some((c) => c.offsetParent !== null));
      assert.equal(visibleMinimap, false, `${id}: no minimap over the figure`);
      if (id === 'legacy-hook') {
        // Through the backward pass (modules open, pins and labels appear): every 4th step.
        const [k, total] = (await ep.locator('#step-count').textContent()).split('/').map(Number);
        for (let s = k; s < total; s += 4) { await seekKey(ep, 'ArrowRight', 4); check(await smallestText(ep), `${id} step ${s + 4}`); }
      }
    }
    assert.deepEqual(errors, []);
    await ep.close();
  });
}
