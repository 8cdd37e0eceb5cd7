// Every lesson loads, runs, plays backward to the end and shows PyTorch's
// numbers in the DOM; a screenshot of each is saved to docs/screenshots/.
// Expected values: the issue text, the seed tutorials and tests/fixtures/pytorch.json.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, waitForRun, toEnd, gradOf, consoleText, SHOTS, ROOT } from './helpers.mjs';
import { LESSONS } from '../../web/src/model/lessons.js';

let env;
before(async () => { env = await setup(); fs.mkdirSync(SHOTS, { recursive: true }); });
after(async () => { await env?.close(); });

const FIX = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'pytorch.json'), 'utf8')).scenarios;

const EXPECT = {
  'training-loop': async (page) => {
    // Losses and the hook's gradient norm from the same training in PyTorch
    // (lesson_training_loop); flat by hand: every step ends with what step 0 left.
    const out = await consoleText(page);
    for (const { step, loss, grad_norm: norm } of FIX.lesson_training_loop.log) {
      const m = new RegExp(`step ${step} loss ([\\d.]+) \\|grad at tanh\\| ([\\d.]+) live tensors ([-+]\\d+) graph nodes ([-+]\\d+)`).exec(out);
      assert.ok(m, `step ${step} printed: ${out}`);
      assert.equal(m[1], loss.toFixed(4)); assert.equal(m[2], norm.toFixed(3));
      assert.deepEqual([m[3], m[4]], ['+0', '+0'], 'flat: no more live tensors or graph nodes than after step 0');
    }
    assert.match(out, new RegExp(`loss tensor\\(${FIX.lesson_training_loop.loss.toFixed(4)}, grad_fn=<${FIX.lesson_training_loop.node}>\\)`));
  },
  'tensor-hooks': async (page) => {
    assert.equal(await gradOf(page, 'a'), '30.'); assert.equal(await gradOf(page, 'b'), '20.');
    assert.equal(await gradOf(page, 'c'), '10.'); assert.equal(await gradOf(page, 'd'), '112.');
    assert.equal(await gradOf(page, 'e'), '2.', 'PyTorch 2: retain_grad runs last');
    const out = await consoleText(page);
    assert.match(out, /cHook got tensor\(8\.\)/); assert.match(out, /printGrad got tensor\(10\.\)/);
  },
  handles: async (page) => {
    const out = await consoleText(page);
    assert.match(out, /with the hook: +a\.grad tensor\(18\.\) b\.grad tensor\(12\.\)/);
    assert.match(out, /after remove\(\): +a\.grad tensor\(12\.\) b\.grad tensor\(8\.\)/);
    assert.equal(await gradOf(page, 'a'), '12.'); assert.equal(await gradOf(page, 'b'), '8.');
  },
  inplace: async (page) => {
    assert.equal(await gradOf(page, 'd'), '100.'); assert.equal(await gradOf(page, 'a'), '300.'); assert.equal(await gradOf(page, 'b'), '200.');
  },
  'module-forward': async (page) => {
    const out = await consoleText(page);
    assert.match(out, /pre-hook sees 2 positional args/);
    assert.match(out, /d = tensor\(116\./); assert.match(out, /d2 = tensor\(6\./);
  },
  'legacy-hook': async (page) => {
    const out = await consoleText(page);
    assert.match(out, /Mul2 legacy: grad_input \(tensor\(3\.\), tensor\(2\.\)\)/);
    assert.match(out, /Mul3 legacy: grad_input \(tensor\(4\.\), tensor\(6\.\)\)/);
    assert.match(out, /Mul3 full: +grad_input \(tensor\(12\.\), tensor\(8\.\), tensor\(6\.\)\)/);
    assert.match(await page.locator('body').textContent(), /non-full backward hook/, 'the deprecation warning is shown');
    assert.ok(await page.locator('.has-legacy').count() >= 1, 'the node the legacy hook attached to is highlighted');
    // The table's numbers against PyTorch: tests/e2e/legacy-table.test.mjs.
    const cmp = await page.getByRole('group', { name: 'Hook comparison' }).textContent();
    assert.match(cmp, /Mul2\(a, b\) has one backward node: its legacy hook reports \(3\., 2\.\) = \(a\.grad, b\.grad\) ✓ right/);
  },
  workaround: async (page) => {
    const out = await consoleText(page);
    for (const [n, v] of [['d', 1], ['c', 6], ['a', 12], ['b', 8]]) assert.match(out, new RegExp(`grad of ${n} tensor\\(${v}\\.\\)`));
  },
  adjoint: async (page) => {
    const out = await consoleText(page);
    assert.match(out, /Layer0 grad_output \(tensor\(\[.*\]\),\) grad_input \(None,\)/, 'first layer grad_input is None');
    assert.match(out, /Layer2 grad_output/); assert.match(out, /adjoint Layer0/);
  },
  'linear-legacy': async (page) => {
    assert.match(await consoleText(page), /legacy grad_input has 3 entries/);
    assert.ok(await page.locator('[data-node]', { hasText: 'AddmmBackward0' }).count() >= 1);
  },
  capture: async (page) => {
    const out = await consoleText(page);
    assert.match(out, /activation tensor\(\[\[/); assert.match(out, /gradient at the encoder output tensor\(\[\[/);
  },
  'node-hooks': async (page) => {
    const out = await consoleText(page);
    assert.match(out, /pre-hook of MulBackward0 grad_outputs/); assert.match(out, /a\.grad is now tensor\(/);
    assert.match(out, /AccumulateGrad hook: grad_outputs/);
  },
  // Second release (values printed by torch 2.15 for the same programs).
  'gradient-penalty': async (page) => {
    const out = await consoleText(page);
    assert.match(out, /dloss\/dw tensor\(\[\[0\.7116, 2\.2779, 0\.2495\]/);
    assert.match(out, /w\.grad tensor\(\[\[ 3\.1590, 10\.7934, +1\.4480\]/);
  },
  'saved-tensors': async (page) => {
    const out = await consoleText(page);
    assert.equal((out.match(/pack: an op saves/g) || []).length, 3, 'three packs at forward');
    assert.equal((out.match(/unpack: backward needs/g) || []).length, 3, 'three unpacks at backward');
    assert.match(out, /x\.grad tensor\(\[ 1\.2840, -5\.4366, 28\.4632\]\)/);
  },
  'multi-grad': async (page) => {
    const out = await consoleText(page);
    assert.match(out, /'all' sees tensor\(\[ 3\., -4\.\]\) tensor\(\[1\., 2\.\]\)/);
    assert.match(out, /'any' sees the first: tensor\(\[2\., 2\.\]\)/);
  },
};

// The surprises (lessons-surprises.js): the JavaScript twin's last printed
// line is PyTorch's last line of the same program (tests/fixtures/surprises.json),
// or PyTorch's exception where PyTorch raised one.
const SURPRISE_FIX = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'surprises.json'), 'utf8')).lessons;
const raises = (id) => SURPRISE_FIX[id]?.off.exception ?? null;
for (const l of LESSONS.filter((x) => x.group === 'surprises')) {
  EXPECT[l.id] = async (page) => {
    const lines = SURPRISE_FIX[l.id].off.stdout;
    const last = raises(l.id)?.message ?? lines[lines.length - 1];
    assert.ok((await consoleText(page)).includes(last), `${l.id}: ${last}`);
  };
}

for (const lesson of LESSONS) {
  test(`lesson ${lesson.n} (${lesson.id}) runs and shows PyTorch's numbers`, async () => {
    const page = await env.page(`#lesson=${lesson.id}`);
    await waitForRun(page);
    assert.equal(await page.getByRole('heading', { level: 2, name: `${lesson.n}. ${lesson.title}` }).count(), 1);
    await page.getByRole('button', { name: 'Backward', exact: true }).click();
    await page.waitForTimeout(300);
    await toEnd(page);
    await page.waitForTimeout(200);
    await EXPECT[lesson.id](page);
    assert.equal(await page.locator('.step-text.is-error').count(), raises(lesson.id) ? 1 : 0, await page.locator('#step-text').textContent());
    if (lesson.compare) {
      // The flagship: show the node the legacy hook really runs on.
      await page.getByRole('button', { name: 'Show the node the legacy hook is attached to' }).click();
      assert.match(await page.getByRole('heading', { level: 3 }).textContent(), /MulBackward0/);
      await page.waitForTimeout(500);
    } else {
      // Overview; big graphs get zoomed in a little so the boxes stay legible.
      await page.getByRole('button', { name: 'Fit graph to view' }).click();
      const k = await page.locator('.viewport').evaluate((g) => Number(/scale\(([\d.]+)\)/.exec(g.style.transform)?.[1] || 1));
      for (let z = k; z < 0.45; z *= 1.25) await page.getByRole('button', { name: 'Zoom in' }).click();
    }
    await page.screenshot({ path: path.join(SHOTS, `lesson-${String(lesson.n).padStart(2, '0')}-${lesson.id}.png`) });
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('lesson 1 under PyTorch 1.x: e.grad is 1 (retain_grad where it was called)', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  await page.getByRole('radio', { name: 'PyTorch 1.x' }).check();
  await page.waitForTimeout(300); await waitForRun(page);
  await toEnd(page);
  assert.equal(await gradOf(page, 'e'), '1.');
  assert.equal(await gradOf(page, 'a'), '30.');
  assert.equal(await gradOf(page, 'd'), '112.');
  await page.close();
});

test('the lesson gallery lists every lesson and opens one', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  await page.getByRole('button', { name: 'Lessons', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Lessons' });
  for (const l of LESSONS) assert.equal(await dialog.getByRole('button', { name: `Open lesson ${l.n}: ${l.title}` }).count(), 1);
  await page.screenshot({ path: path.join(SHOTS, 'gallery.png') });
  await dialog.getByRole('button', { name: /^Open lesson 5:/ }).click();
  await waitForRun(page);
  assert.equal(await page.getByRole('combobox', { name: 'Lesson' }).inputValue(), 'legacy-hook');
  await page.close();
});

test('lesson 5 at 700 px wide (the embed width) is usable', async () => {
  const page = await env.page('#lesson=legacy-hook', { width: 700, height: 900 });
  await waitForRun(page);
  await page.getByRole('button', { name: 'Backward', exact: true }).click();
  await toEnd(page);
  assert.match(await page.getByRole('group', { name: 'Hook comparison' }).textContent(), /\(4\., 6\.\).*\(12\., 8\., 6\.\)/);
  await page.getByRole('button', { name: 'Show the node the legacy hook is attached to' }).click();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(SHOTS, 'narrow-700-legacy-hook.png') });
  await page.close();
});
