// Shared e2e set-up: a static server on 127.0.0.1 (free port) for the built
// site and headless Debian Chromium via playwright-core.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(ROOT, 'web', 'dist');
export const SHOTS = path.join(ROOT, 'docs', 'screenshots');

export async function setup() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) throw new Error('web/dist is missing: run `npm run build` first');
  if (!fs.existsSync(path.join(DIST, 'pkg', 'hookgrad.js'))) throw new Error('web/dist/pkg is missing: run `npm run build` (wasm + site) first');
  const { server, url } = await serve({ root: DIST, port: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  return {
    url, browser,
    async page(hash = '', viewport = { width: 1280, height: 800 }) {
      const page = await browser.newPage({ viewport, colorScheme: 'light' });
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(e.message));
      page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
      await page.goto(`${url}playground.html${hash}`);
      return page;
    },
    /** A playground link with a program of its own: it waits for the reader's click (model/trust.js); click it. */
    async linkedPage(hash, viewport) {
      const page = await this.page(hash, viewport);
      await runLinked(page);
      return page;
    },
    async close() { await browser.close(); await new Promise((r) => server.close(r)); },
  };
}

/** Presses "Run this program" on a page opened from a link with its own program. */
export async function runLinked(page) {
  await page.getByRole('button', { name: 'Run this program' }).click({ timeout: 10000 });
}

/**
 * Waits until a run finished: the page is no longer busy (while a program
 * runs the Run button is a Stop button, still enabled, and the previous run's
 * steps are still shown) and the scrubber has steps.
 */
export async function waitForRun(page, timeout = 15000) {
  await page.waitForFunction(() => !document.body.classList.contains('busy') && !document.getElementById('run-btn').disabled && document.getElementById('step-count').textContent !== '0 / 0', null, { timeout });
}

/** Jumps the player to the last step, like pressing End on the scrubber. */
export async function toEnd(page) {
  await page.getByRole('slider', { name: 'Scrub through the trace' }).focus();
  await page.keyboard.press('End');
}

/** Number of steps: [k, total]. */
export async function steps(page) {
  const t = await page.locator('#step-count').textContent();
  return t.split('/').map((x) => Number(x.trim()));
}

/** `.grad` of a tensor as shown in the inspector's table at the current step. */
export async function gradOf(page, name) {
  const row = page.getByRole('table', { name: 'Gradients at this step' }).getByRole('row').filter({ has: page.getByRole('rowheader', { name: `${name}.grad`, exact: true }) });
  return (await row.getByRole('cell').textContent()).trim();
}

export async function consoleText(page) {
  return (await page.getByRole('list', { name: 'Console output' }).textContent()) || '';
}

/** Clears the graph selection (Escape), so the inspector shows the .grad table. */
export async function deselect(page) {
  await page.keyboard.press('Escape');
}
