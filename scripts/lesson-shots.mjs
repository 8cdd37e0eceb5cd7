// Screenshots of every lesson as a learner sees it, for reading them by eye
// (issue 32): at 1280×800, 700×500 and 390×844, at the first view and at the
// first hook call of the pass the figure shows. Needs `npm run build` first.
//   node scripts/lesson-shots.mjs [outDir=/tmp/hookgrad-shots] [lesson-id…]
import fs from 'node:fs';
import path from 'node:path';
import { setup, waitForRun } from '../tests/e2e/helpers.mjs';
import { LESSONS } from '../web/src/model/lessons.js';

const [out = '/tmp/hookgrad-shots', ...only] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const SIZES = [[1280, 800], [700, 500], [390, 844]];
const env = await setup();
try {
  for (const lesson of LESSONS.filter((l) => !only.length || only.includes(l.id))) {
    for (const [width, height] of SIZES) {
      const page = await env.page(`#lesson=${lesson.id}`, { width, height });
      await waitForRun(page, 30000);
      await page.waitForTimeout(500);
      const name = (what) => path.join(out, `${String(lesson.n).padStart(2, '0')}-${lesson.id}-${width}x${height}-${what}.png`);
      await page.screenshot({ path: name('first') });
      // The first hook call from the figure's pass on (or the first step of a forward story).
      const k = await page.evaluate(() => {
        const m = globalThis.hookgradController.session.model;
        const hook = m.steps.find((s) => s.index >= Math.min(m.forwardEnd, m.figureStart ?? m.forwardEnd) && s.event.type === 'hook' && s.event.kind !== 'retain-grad');
        return hook ? hook.index + 1 : Math.min(m.steps.length, m.forwardEnd + 1);
      });
      // Stepped to with the Step button, as a reader would (the camera follows).
      await page.evaluate((k) => { globalThis.hookgradController.player.seek(k - 1); }, k);
      await page.click('#step-btn');
      await page.waitForFunction(() => !globalThis.hookgradController.revealing);
      await page.waitForTimeout(700);
      await page.screenshot({ path: name(`step${k}`) });
      if (page.errors.length) console.log(lesson.id, width, page.errors);
      await page.close();
    }
  }
} finally {
  await env.close();
}
console.log(`screenshots in ${out}`);
