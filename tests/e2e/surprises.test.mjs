// The surprise lessons in the page: in Python, each side of each lesson's
// switch prints exactly what real PyTorch printed (tests/fixtures/
// surprises.json, from the lessons' own programs run by torch); the switch
// flips the program, runs it again and fills the before / after columns; in
// JavaScript the columns show the engine's numbers (by hand in the comments).
// Screenshots at 1280×800, 700 and 390 px go to docs/screenshots/surprise-*.png.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, waitForRun, toEnd, SHOTS, ROOT } from './helpers.mjs';
import { SURPRISES } from '../../web/src/model/lessons-surprises.js';

const FIX = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'surprises.json'), 'utf8')).lessons;
const PY_LOAD = 180000;
let env;
before(async () => { env = await setup(); fs.mkdirSync(SHOTS, { recursive: true }); });
after(async () => { await env?.close(); });

/** Waits for a finished run of the program now in the editor (not the JS twin standing in for Python). */
async function waitForOwnRun(page, program) {
  await page.waitForFunction((want) => {
    const c = globalThis.hookgradController;
    return c?.session && !c.session.twin && !document.body.classList.contains('busy') && c.getSource().program === want && /ran in|error/.test(document.getElementById('program-status').textContent);
  }, program, { timeout: PY_LOAD });
}
const programLines = (page) => page.evaluate(() => globalThis.hookgradController.session.lines.filter((l) => l.source === 'program').map((l) => l.text));
const current = (page) => page.evaluate(() => globalThis.hookgradController.getSource().program);

test('Python: every surprise prints PyTorch\'s lines on both sides of its switch, and the columns fill in', { timeout: 900000 }, async () => {
  const page = await env.page(`#lesson=${SURPRISES[0].id}&lang=python`);
  for (const lesson of SURPRISES) {
    if (lesson !== SURPRISES[0]) await page.selectOption('#lesson-select', lesson.id);
    await waitForOwnRun(page, lesson.python);
    assert.deepEqual(await programLines(page), FIX[lesson.id].off.stdout, `${lesson.id} as written`);
    assert.equal(await page.locator('.sw-side[aria-pressed=true]').textContent(), lesson.switch.off);
    await page.locator('.sw-side', { hasText: lesson.switch.on }).click();
    const switched = await current(page);
    assert.notEqual(switched, lesson.python);
    await waitForOwnRun(page, switched);
    assert.deepEqual(await programLines(page), FIX[lesson.id].on.stdout, `${lesson.id} switched`);
    assert.equal(await page.locator('.sw-side[aria-pressed=true]').textContent(), lesson.switch.on);
    // Both columns now hold a run, in words (no stray object text).
    assert.doesNotMatch((await page.locator('.sw-cols').textContent()), /\[object /);
    if (FIX[lesson.id].off.warnings.length) assert.match(await page.locator('.sw-col').first().textContent(), /PyTorch warns/);
    assert.equal(await page.locator('.sw-col h4').filter({ hasText: '.grad at the end' }).count(), 2, lesson.id);
    // PyTorch's warnings (without the C++ build path) are the engine's, on each side.
    const warned = await page.evaluate(() => globalThis.hookgradController.session.model.trace.filter((e) => e.type === 'warning').map((e) => e.message));
    assert.deepEqual(warned, FIX[lesson.id].on.warnings.map((w) => w.message.replace(/ \(Triggered internally at [^)]*\)$/, '')));
  }
  assert.deepEqual(page.errors, []);
});

test('JavaScript, 1280×800: hooks-pile-up\'s columns say 4 and 16; the timeline piles up marks on w', { timeout: 240000 }, async () => {
  const page = await env.page('#lesson=hooks-pile-up');
  await waitForRun(page, 90000);
  const lesson = SURPRISES.find((l) => l.id === 'hooks-pile-up');
  await page.locator('.sw-side', { hasText: lesson.switch.on }).click();
  await waitForOwnRun(page, await current(page));
  await toEnd(page);
  const cols = await page.locator('.sw-col').allTextContents();
  // By hand: d(2w)/dw = 2, doubled once per registered hook: 4 with remove(), 2·2³ = 16 at step 2 without.
  assert.match(cols[0], /w\.grad = 4\./); assert.match(cols[1], /w\.grad = 16\./);
  assert.match(cols[1], /tensor hook double on w ×3/, 'step 2: three hooks in a row');
  if (!(await page.evaluate(() => document.getElementById('timeline-box').open))) await page.click('#timeline-box summary');
  await page.waitForSelector('#timeline .mk');
  assert.equal(await page.locator('#timeline .mk[data-kind=tensor]').count(), 6, '1 + 2 + 3 tensor-hook marks');
  await page.screenshot({ path: path.join(SHOTS, 'surprise-pile-up-1280.png') });
  assert.deepEqual(page.errors, []);
});

test('JavaScript, 1280×800: inplace-after-hook stops at its line with PyTorch\'s error; inplace: false runs the hook', { timeout: 240000 }, async () => {
  const page = await env.page('#lesson=inplace-after-hook');
  const lesson = SURPRISES.find((l) => l.id === 'inplace-after-hook');
  await waitForOwnRun(page, lesson.program);
  const line = lesson.program.split('\n').findIndex((t) => t.startsWith('const y = act.call(h)')) + 1;
  assert.equal(await page.locator('#program-status').textContent(), `error at line ${line}`);
  const pytorch = FIX[lesson.id].off.exception.message;
  assert.ok((await page.locator('.sw-col').first().textContent()).includes(pytorch), 'the as-written column holds PyTorch\'s words');
  await page.screenshot({ path: path.join(SHOTS, 'surprise-inplace-1280.png') });
  await page.locator('.sw-side', { hasText: lesson.switch.onJs }).click();
  await waitForOwnRun(page, await current(page));
  const cols = await page.locator('.sw-col').allTextContents();
  // By hand: h = 2x + b = [2.5, -1.5]; ReLU lets the first through: dL/dh = [1, 0], dL/dx = 2·[1, 0], dL/db = [1, 0].
  assert.match(cols[1], /full backward hook showGrads on Layer/);
  assert.match(cols[1], /x\.grad = \[2\., 0\.\]/); assert.match(cols[1], /b\.grad = \[1\., 0\.\]/);
  assert.doesNotMatch(cols[1], /Error/);
  assert.deepEqual(page.errors, []);
});

for (const [width, height] of [[700, 900], [390, 844]]) {
  test(`${width} px: the switch and its columns fit, labels readable`, { timeout: 240000 }, async () => {
    const page = await env.page('#lesson=grad-ready-in-hook', { width, height });
    await waitForRun(page, 90000);
    const lesson = SURPRISES.find((l) => l.id === 'grad-ready-in-hook');
    await page.locator('.sw-side', { hasText: lesson.switch.on }).click();
    await waitForOwnRun(page, await current(page));
    const m = await page.evaluate(() => ({
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      fonts: [...document.querySelectorAll('.lesson-switch *')].filter((e) => e.childNodes.length && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())).map((e) => parseFloat(getComputedStyle(e).fontSize)),
    }));
    assert.ok(m.overflow <= 0, `no sideways scroll (${m.overflow} px)`);
    assert.ok(Math.min(...m.fonts) >= 11, `text ≥ 11 px: ${Math.min(...m.fonts)}`);
    if (width < 600) {
      const heights = await page.locator('.sw-side').evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().height));
      assert.ok(Math.min(...heights) >= 40, `the switch's buttons are 40-px tap targets: ${heights}`);
    }
    await page.locator('.lesson-switch').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, `surprise-switch-${width}.png`) });
    assert.deepEqual(page.errors, []);
  });
}

test('the gallery groups the lessons, each card with one line of what it shows', { timeout: 120000 }, async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page, 90000);
  await page.click('#gallery-btn');
  const groups = await page.locator('.gallery-group h3').allTextContents();
  assert.deepEqual(groups.map((g) => g.split(':')[0]), ['The hook family', 'Surprises', 'Beyond']);
  const surprises = page.getByRole('list', { name: /^Surprises/ });
  assert.equal(await surprises.getByRole('button').count(), SURPRISES.length);
  await surprises.getByRole('button', { name: new RegExp(SURPRISES[0].title.replace(/[()]/g, '.')) }).click();
  await page.waitForFunction((id) => globalThis.hookgradController.getSource().lesson?.id === id, SURPRISES[0].id);
  assert.deepEqual(page.errors, []);
});
