// Shared by the tutorial pages' e2e files (tutorials.test.mjs,
// tutorial-adjoint.test.mjs): opening a page, reading a cell's printed
// numbers, waiting for figures, and PyTorch's recorded values to compare with.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SHOTS } from './helpers.mjs';

export const FIX = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'pytorch.json'), 'utf8')).scenarios;
export const PAGES = ['hooks-in-depth', 'adjoint', 'capture', 'legacy-linear'];

// The test file's environment (helpers.mjs setup()): each e2e file is its own process.
let env;
export function useEnv(e) { env = e; }


export const flat = (v) => (Array.isArray(v) ? v.flatMap(flat) : v === null || v === undefined ? [] : [v]);

/** Numbers in a printed value: tensor reprs, tuples, plain numbers (grad_fn=<…> and shapes in words skipped). */
export function numbers(text) {
  const t = text.replace(/grad_fn=<[^>]*>/g, '').replace(/requires_grad=True/g, '');
  return (t.match(/-?\d+(?:\.\d*)?(?:e[+-]?\d+)?/gi) || []).map(Number);
}

/** Printed values (PyTorch repr, 4 decimals) against PyTorch's values. */
export function assertClose(actual, expected, what) {
  const exp = flat(expected);
  assert.equal(actual.length, exp.length, `${what}: ${actual.length} numbers printed, PyTorch has ${exp.length} (${actual} vs ${exp})`);
  actual.forEach((a, i) => {
    const e = exp[i];
    assert.ok(Math.abs(a - e) <= 1e-4 + 1e-4 * Math.abs(e), `${what}[${i}]: page ${a}, PyTorch ${e}`);
  });
}

export async function open(pagePath, viewport = { width: 1280, height: 800 }) {
  const page = await env.browser.newPage({ viewport, colorScheme: 'light' });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  await page.goto(`${env.url}${pagePath}`);
  return page;
}

export async function openTutorial(name, viewport) {
  const page = await open(`tutorials/${name}.html`, viewport);
  await page.waitForFunction(() => document.body.dataset.cellsReady === '1', null, { timeout: 30000 });
  return page;
}

/** The output lines of a cell. */
// A cell in Python prints AccumulateGrad's name() as PyTorch does, with its C++
// namespace (torch::autograd::AccumulateGrad): compared as the JS cell prints it.
export const lines = async (page, id) => (await page.locator(`#${id} .cell-lines li`).allTextContents()).map((l) => l.replace(/torch::autograd::/g, ''));

/** The numbers on the output line that starts with `label` (after the label). */
export async function printed(page, id, label, nth = 0) {
  const hits = (await lines(page, id)).filter((l) => l.startsWith(label));
  assert.ok(hits.length > nth, `${id}: no output line starting with "${label}"`);
  return numbers(hits[nth].slice(label.length));
}

/** Runs a cell by pressing its Run button and waits for the new output. */
export async function runCell(page, id) {
  const before = Number(await page.locator(`#${id}`).getAttribute('data-runs') || 0);
  await page.locator(`#${id} .cell-bar .btn.primary`).click();
  await page.waitForFunction(([sel, n]) => Number(document.querySelector(sel).dataset.runs || 0) > n, [`#${id}`, before], { timeout: 15000 });
}

/** Scrolls a figure into view and waits until its embed has drawn the graph at the figure's step. */
export async function figureReady(page, id) {
  const fig = page.locator(`#${id}`);
  await fig.scrollIntoViewIfNeeded();
  await page.waitForFunction((fid) => document.querySelector(`#${fid} iframe`), id, { timeout: 20000 });
  const frame = page.frameLocator(`#${id} iframe`);
  await frame.locator('[data-node]').first().waitFor({ timeout: 20000 });
  const step = await fig.getAttribute('data-step'); const total = await fig.getAttribute('data-total');
  await frame.locator('#step-count').filter({ hasText: `${step} / ${total}` }).waitFor({ timeout: 10000 });
  return { frame, step: Number(step), total: Number(total) };
}

/** Presses ▶ in a figure and waits for the player to reach the last step
 * (and for the figure's element to report `done`, as a host page would see it). */
export async function playToEnd(page, id, frame, total) {
  await page.locator(`#${id} hookgrad-playground`).evaluate((el) => {
    el.dataset.done = '';
    el.addEventListener('done', (e) => { el.dataset.done = String(e.detail.step); });
  });
  await frame.locator('#play-btn').click();
  await frame.locator('#step-count').filter({ hasText: `${total} / ${total}` }).waitFor({ timeout: 30000 });
  await page.waitForFunction(([fid, n]) => document.querySelector(`#${fid} hookgrad-playground`).dataset.done === String(n), [id, total], { timeout: 10000 });
}

/** Every figure of the page loads its embed at the step it names. */
export async function allFigures(page) {
  const ids = await page.locator('figure.hg-figure').evaluateAll((els) => els.map((e) => e.id));
  assert.ok(ids.length >= 2, 'a tutorial has several figures');
  for (const id of ids) {
    await figureReady(page, id);
    // The site's own element, opened at the figure's step.
    const el = page.locator(`#${id} .fig-frame > hookgrad-playground`);
    assert.equal(await el.getAttribute('step'), await page.locator(`#${id}`).getAttribute('data-step'), `${id} step attribute`);
  }
  return ids;
}

export async function screenshots(name, scrollTo) {
  for (const [w, h, suffix] of [[1280, 800, ''], [390, 844, '-390']]) {
    const page = name === 'front-page' ? await open('index.html', { width: w, height: h }) : await openTutorial(name, { width: w, height: h });
    if (scrollTo) {
      await figureReady(page, scrollTo);
      await page.locator(`#${scrollTo}`).evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.evaluate(() => window.scrollBy(0, -12));
    } else if (name === 'front-page') {
      await page.frameLocator('.hero-frame iframe').locator('[data-node]').first().waitFor({ timeout: 20000 });
    }
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(SHOTS, `${name === 'front-page' ? 'front-page' : `tutorial-${name}`}${suffix}.png`) });
    assert.deepEqual(page.errors, [], `${name} at ${w}px: console errors`);
    await page.close();
  }
}
