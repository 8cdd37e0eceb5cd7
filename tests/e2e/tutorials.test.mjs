// The four tutorial pages and the front page, in Chromium against web/dist.
// Every number a cell prints is compared with what real PyTorch computed for
// the same scenario (tests/fixtures/pytorch.json, tutorial_* scenarios from
// tests/fixtures/pyfixtures/tutorials.py) — never with numbers typed here.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, toEnd, deselect, gradOf, runLinked } from './helpers.mjs';
import { loadPackage } from '../load-package.mjs';
import { FIX, PAGES, useEnv, flat, numbers, assertClose, open, openTutorial, lines, printed, runCell, figureReady, playToEnd, allFigures, screenshots } from './tutorial-page.mjs';

let env;
before(async () => { env = await setup(); useEnv(env); });
after(async () => { await env?.close(); });

// ------------------------------------------- the page modules, in Node

test('code cells read hg.setSemantics lines; figures find their step in the engine\'s own trace', async () => {
  const { readSemantics } = await import('../../web/src/tutorials/code-cell.js');
  const { findStep } = await import('../../web/src/tutorials/figure.js');
  const { analyze } = await import('../../web/src/model/trace-model.js');
  const src = "hg.setSemantics('pytorch-1');\nconst a = 1;\nif (a) hg.setSemantics('pytorch-2');\n";
  const r = readSemantics(src);
  assert.equal(r.semantics, 'pytorch-1');
  assert.equal(r.program.split('\n').length, src.split('\n').length, 'line numbers kept');
  assert.match(r.program.split('\n')[0], /^\/\/ /);
  assert.match(r.program, /if \(a\) hg\.setSemantics\('pytorch-2'\);/, 'only whole-line calls are read');
  assert.equal(readSemantics('const x = 1;').semantics, 'pytorch-2');

  const { hg } = await loadPackage();
  const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
  const c = a.mul(3); c.name = 'c';
  c.registerHook(function double(g) { return g.mul(2); });
  const e = c.mul(c); e.name = 'e';
  const trace = hg.trace(() => e.backward());
  const model = analyze(hg.graph([a, c, e]), trace);
  const k = findStep(model, 'hook:double');
  assert.equal(trace[k - 1].type, 'hook');
  assert.equal(trace[k - 1].kind, 'tensor');
  const mulRuns = trace.flatMap((ev, i) => (ev.type === 'node' && ev.name === 'MulBackward0' ? [i] : []));
  assert.equal(mulRuns.length, 2);
  assert.equal(findStep(model, 'node:MulBackward0@2'), mulRuns[1] + 1, 'the second run of a MulBackward0');
  assert.equal(trace[findStep(model, 'grad:a') - 1].type, 'accumulate');
  assert.equal(findStep(model, 'end'), trace.length);
  assert.equal(findStep(model, 'hook:nosuchhook'), null);
});

// ------------------------------------------------------------- hooks in depth

test('hooks in depth: cells print PyTorch\'s gradients, hook order and retain_grad under 2.x and 1.x', async () => {
  const page = await openTutorial('hooks-in-depth');
  const video = FIX.tutorial_hooks_video;
  for (const t of ['a', 'b', 'c', 'd', 'e']) {
    assertClose(await printed(page, 'cell-video', `${t}.grad`), video.pytorch2.grads[t], `cell 1 ${t}.grad`);
    assertClose(await printed(page, 'cell-v1', `${t}.grad`), video.pytorch1.grads[t], `cell 2 (pytorch-1) ${t}.grad`);
  }
  assert.notEqual(video.pytorch1.grads.e, video.pytorch2.grads.e, 'the two rules differ on e.grad');
  // Hook order: cHook first with 8, then printGrad with cHook's result.
  const hookLines = (await lines(page, 'cell-video')).filter((l) => /receives/.test(l));
  assert.deepEqual(hookLines.map((l) => l.split(' ')[0]), video.pytorch2.log.map(([name]) => name));
  hookLines.forEach((l, i) => assertClose(numbers(l), video.pytorch2.log[i][1], `cell 1 ${video.pytorch2.log[i][0]}`));
  // The comparison table is filled from the two runs.
  for (const t of ['a', 'b', 'c', 'd', 'e']) {
    const [v2, v1] = await page.locator('#retain-table tbody tr').filter({ hasText: `${t}.grad` }).locator('td').allTextContents();
    assertClose(numbers(v2), video.pytorch2.grads[t], `table ${t}.grad 2.x`);
    assertClose(numbers(v1), video.pytorch1.grads[t], `table ${t}.grad 1.x`);
  }

  const handles = FIX.tutorial_hooks_handles;
  assertClose(await printed(page, 'cell-handles', 'with addTwo:'), [handles.with_hook.a, handles.with_hook.b], 'cell 3 with the hook');
  assertClose(await printed(page, 'cell-handles', 'after remove:'), [handles.after_remove.a, handles.after_remove.b], 'cell 3 after remove()');

  const inplace = FIX.tutorial_hooks_inplace;
  assertClose(await printed(page, 'cell-inplace', 'd.grad'), inplace.inplace.d, 'cell 4 d.grad');
  assertClose(await printed(page, 'cell-inplace', 'a.grad'), [inplace.inplace.a, inplace.inplace.b], 'cell 4 a.grad, b.grad');
  assertClose(await printed(page, 'cell-inplace-fixed', 'a.grad'), [inplace.returned.a, inplace.returned.b], 'cell 5 a.grad, b.grad');

  const node = FIX.tutorial_hooks_node;
  const log = Object.fromEntries(node.log.map(([k, ...v]) => [k, v]));
  assertClose(await printed(page, 'cell-node', 'pre-hook of MulBackward0 receives'), log.pre, 'node pre-hook');
  assertClose(await printed(page, 'cell-node', 'hook of MulBackward0 grad_inputs'), log.post, 'node post-hook');
  assertClose(await printed(page, 'cell-node', 'post-accumulate: a.grad is'), log.post_acc, 'post-accumulate-grad hook');
  assertClose(await printed(page, 'cell-node', 'hook of AccumulateGrad grad_outputs'), log.acc_post, 'AccumulateGrad post-hook');
  // PyTorch's order on a leaf: post-accumulate-grad hook, then AccumulateGrad's post-hook.
  const order = (await lines(page, 'cell-node')).map((l) => (l.startsWith('post-accumulate') ? 'post_acc' : l.startsWith('hook of AccumulateGrad') ? 'acc_post' : l.startsWith('pre-hook') ? 'pre' : l.startsWith('hook of MulBackward0') ? 'post' : null)).filter(Boolean);
  assert.deepEqual(order, node.log.map(([k]) => k));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('hooks in depth: editing a cell re-runs it and redraws its figure; figures play', async () => {
  const page = await openTutorial('hooks-in-depth');
  const video = FIX.tutorial_hooks_video;
  await allFigures(page);
  // Figure 1 opens where cHook runs: it turns what it received into what printGrad receives.
  const { frame, total } = await figureReady(page, 'fig-1');
  assertClose(numbers(await frame.locator('#step-text').textContent()), [video.pytorch2.log[0][1], video.pytorch2.log[1][1]], 'figure 1 step text');
  await playToEnd(page, 'fig-1', frame, total);

  // Cell 2 switched back to PyTorch 2 by editing its first line: e.grad becomes 2.x's, figure 2 follows.
  const src0 = await page.locator('#fig-2').getAttribute('data-src');
  // The cell shows its Python by default: its JavaScript is one click away.
  const runs0 = Number(await page.locator('#cell-v1').getAttribute('data-runs'));
  await page.locator('#cell-v1').getByRole('radio', { name: 'JavaScript' }).check();
  await page.waitForFunction((n) => Number(document.querySelector('#cell-v1').dataset.runs) > n, runs0, { timeout: 15000 });
  const area = page.locator('#cell-v1 textarea');
  await area.fill((await area.inputValue()).replace("hg.setSemantics('pytorch-1')", "hg.setSemantics('pytorch-2')"));
  await runCell(page, 'cell-v1');
  assertClose(await printed(page, 'cell-v1', 'e.grad'), video.pytorch2.grads.e, 'edited cell 2 e.grad');
  assert.match(await page.locator('#cell-v1 .cell-status').textContent(), /PyTorch 2 semantics/);
  await page.waitForFunction((s) => document.querySelector('#fig-2').dataset.src !== s, src0, { timeout: 15000 });
  await figureReady(page, 'fig-2');
  // A broken edit shows the engine's error in the cell instead of output.
  await area.fill('const t = hg.tensor([1, 2], { requiresGrad: true });\nt.mul(2).backward();');
  await runCell(page, 'cell-v1');
  assert.match(await page.locator('#cell-v1 .cell-error').textContent(), /grad can be implicitly created only for scalar outputs/);
  // A runaway hook cannot freeze the article: the worker is stopped, the page stays responsive.
  await area.fill('const t = hg.tensor(1, { requiresGrad: true });\nt.registerHook(function spin(g) { while (true) {} });\nt.mul(2).backward();');
  await runCell(page, 'cell-v1');
  assert.match(await page.locator('#cell-v1 .cell-error').textContent(), /Stopped: the program was still running/);
  const runs1 = Number(await page.locator('#cell-v1').getAttribute('data-runs'));
  await page.locator('#cell-v1 .cell-bar button', { hasText: 'Reset' }).click();
  await page.waitForFunction((n) => Number(document.querySelector('#cell-v1').dataset.runs) > n, runs1, { timeout: 15000 });
  assertClose(await printed(page, 'cell-v1', 'e.grad'), video.pytorch1.grads.e, 'cell 2 after Reset');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('hooks in depth: an edited Python cell redraws its figure from the Python', async () => {
  const page = await openTutorial('hooks-in-depth');
  const video = FIX.tutorial_hooks_video;
  await page.waitForFunction(() => document.body.dataset.pythonReady === '1', null, { timeout: 90000 });
  await figureReady(page, 'fig-2');
  const src0 = await page.locator('#fig-2').getAttribute('data-src');
  // Unedited, the Python ran as itself but the figure stays (its JS twin drew the same graph).
  const area = page.locator('#cell-v1 textarea');
  assert.match(await area.inputValue(), /^# semantics: pytorch-1/);
  await area.fill((await area.inputValue()).replace('# semantics: pytorch-1', '# semantics: pytorch-2'));
  await runCell(page, 'cell-v1');
  assert.match(await page.locator('#cell-v1 .cell-status').textContent(), /PyTorch 2 semantics.*Python/);
  assertClose(await printed(page, 'cell-v1', 'e.grad'), video.pytorch2.grads.e, 'edited Python cell 2 e.grad');
  await page.waitForFunction((s) => document.querySelector('#fig-2').dataset.src !== s, src0, { timeout: 90000 });
  const { frame } = await figureReady(page, 'fig-2');
  // The embed runs the reader's Python (its title says so) under the edited semantics.
  assert.match(await frame.locator('#embed-title').textContent(), /Python/);
  assert.match(await page.locator('#fig-2 .fig-step').textContent(), /retain_grad/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a cell\'s "Open in playground" link carries its program, language and semantics', async () => {
  const page = await openTutorial('hooks-in-depth');
  const href = await page.locator('#cell-v1 a.cell-open').getAttribute('href');
  await page.close();
  const pg = await open(href.slice(env.url.length));
  // Not one of the lessons: the program waits for the reader's click (web/src/model/trust.js).
  await runLinked(pg);
  await pg.waitForFunction(() => /ran in/.test(document.getElementById('program-status').textContent), null, { timeout: 60000 });
  assert.equal(await pg.getByRole('radio', { name: 'Python' }).isChecked(), true, 'the cell\'s language (Python)');
  assert.match(await pg.locator('#editor').textContent(), /import torch/);
  assert.equal(await pg.locator('input[value="pytorch-1"]').isChecked(), true, 'PyTorch 1.x semantics selected');
  await toEnd(pg);
  await deselect(pg);
  assertClose(numbers(await gradOf(pg, 'e')), FIX.tutorial_hooks_video.pytorch1.grads.e, 'playground e.grad under 1.x');
  assert.deepEqual(pg.errors, []);
  await pg.close();
});

// ------------------------------------------------------------------- capture

test('capture: the Routine keeps the layer\'s output and input gradient; the legacy hook gives the bias gradient', async () => {
  const page = await openTutorial('capture');
  const fx = FIX.tutorial_capture;
  const names = (await lines(page, 'cell-routine')).find((l) => l.startsWith('named modules:'));
  assert.deepEqual(names.slice('named modules:'.length).split(',').map((s) => s.trim().replace(/'/g, '')), fx.full.named_modules);
  assertClose(await printed(page, 'cell-routine', 'loss'), fx.full.losses[0], 'loss');
  assertClose(await printed(page, 'cell-routine', 'activation'), fx.full.activations[0], 'activation');
  assertClose(await printed(page, 'cell-routine', 'gradient'), fx.full.gradients[0], 'gradient (grad_input[0])');
  assertClose(await printed(page, 'cell-routine', 'after two calls:'), [fx.full.activations.length, fx.full.gradients.length], 'list lengths');

  // The unbound method: the hook's TypeError, named after the module, ends the run.
  assert.match(await page.locator('#cell-unbound .cell-error').textContent(), /forward hook of module 'Linear' raised an error: .*undefined/);

  const legacy = fx.legacy;
  const shapes = (await lines(page, 'cell-legacy')).find((l) => l.startsWith('legacy gradInput has'));
  assert.equal(numbers(shapes)[0], legacy.grad_input.length);
  assert.deepEqual(shapes.split('shapes ')[1].match(/\[[^\]]*\]/g).map((s) => JSON.parse(s)), legacy.grad_input_shapes);
  assertClose(await printed(page, 'cell-legacy', 'gradInput[0]'), legacy.grad_input[0], 'legacy gradInput[0] (the bias gradient)');
  assertClose(await printed(page, 'cell-legacy', 'x.grad'), fx.full.x_grad, 'x.grad');
  assert.ok((await lines(page, 'cell-legacy')).includes(legacy.warnings[0].message), 'PyTorch\'s legacy-hook warning');
  assert.ok((await lines(page, 'cell-legacy')).includes(`out.gradFn ${legacy.node}`));
  const ids = await allFigures(page);
  const { frame, total } = await figureReady(page, ids[1]);
  await playToEnd(page, ids[1], frame, total);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('capture: the training cell runs each step in hg.tidy and keeps the live tensors flat', async () => {
  const page = await openTutorial('capture');
  const fx = FIX.tutorial_capture_training;
  for (const [step, loss] of Object.entries(fx.losses)) {
    const line = (await lines(page, 'cell-training')).find((l) => l.startsWith(`step ${step} loss`));
    const m = /loss (\S+) live tensors ([-+]\d+)$/.exec(line || '');
    assert.ok(m, `step ${step}: ${line}`);
    assert.ok(Math.abs(Number(m[1]) - loss) <= 1e-3 * Math.abs(loss) + 1e-7, `step ${step}: page ${m[1]}, PyTorch ${loss}`);
    // Flat by hand: each step frees what it made, and the hook disposes the gradient it replaces.
    assert.equal(m[2], '+0', `live tensors after step ${step}, compared with step 1`);
  }
  assertClose(await printed(page, 'cell-training', 'latest gradient'), fx.latest_grad_input, 'the kept grad_input[0]');
  assert.deepEqual(page.errors, []);
  await page.close();
});

// ------------------------------------------------------------- legacy Linear

test('legacy Linear: MmBackward0\'s pair, AddmmBackward0\'s triple and the full hook\'s single gradient', async () => {
  const page = await openTutorial('legacy-linear');
  const fx = FIX.tutorial_legacy_linear;
  const blog = fx.blog.hook[0];
  assertClose(await printed(page, 'cell-blog', 'grad_input '), blog.grad_input, 'blog grad_input');
  assertClose(await printed(page, 'cell-blog', 'grad_output'), blog.grad_output, 'blog grad_output');
  assert.ok((await lines(page, 'cell-blog')).some((l) => l === `out.gradFn  ${fx.blog.node}`));
  assertClose(await printed(page, 'cell-blog', 'x.grad'), fx.blog.x_grad, 'blog x.grad');
  assertClose(await printed(page, 'cell-blog', 'weight.grad'), fx.blog.weight_grad, 'blog weight.grad');
  assert.ok((await lines(page, 'cell-blog')).includes(fx.blog.forward_warnings[0].message));

  const triple = fx.triple.hook[0];
  for (let i = 0; i < triple.grad_input.length; i++) {
    const nums = await printed(page, 'cell-triple', `grad_input[${i}]`);
    const shape = triple.shapes[i];
    assert.deepEqual(nums.slice(0, shape.length), shape, `grad_input[${i}] shape`);
    assertClose(nums.slice(shape.length), triple.grad_input[i], `triple grad_input[${i}]`);
  }
  assert.equal(await page.locator('#cell-triple .cell-lines li').filter({ hasText: /^grad_input\[\d\]/ }).count(), triple.grad_input.length);
  assertClose(await printed(page, 'cell-triple', 'grad_output'), triple.grad_output, 'triple grad_output');
  assert.ok((await lines(page, 'cell-triple')).includes(`out.gradFn ${fx.triple.node}`));

  const full = fx.full.hook[0];
  assertClose(await printed(page, 'cell-full', 'grad_input '), full.grad_input, 'full grad_input');
  assertClose(await printed(page, 'cell-full', 'grad_output'), full.grad_output, 'full grad_output');
  assert.ok((await lines(page, 'cell-full')).includes(`out.gradFn ${fx.full.node}`));
  assertClose(await printed(page, 'cell-full', 'x.grad'), [fx.full.x_grad, fx.full.weight_grad, fx.full.bias_grad], 'full leaves');
  // The table is read from the engine after each run.
  const row = (name) => page.locator('#grads-table tbody tr').filter({ hasText: name }).locator('td');
  assertClose(numbers(await row('x.grad').nth(0).textContent()), fx.blog.x_grad, 'table x.grad, cell 1');
  assertClose(numbers(await row('weight.grad').nth(1).textContent()), fx.triple.weight_grad, 'table weight.grad, cell 2');
  assertClose(numbers(await row('bias.grad').nth(2).textContent()), fx.full.bias_grad, 'table bias.grad, cell 3');
  await allFigures(page);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// ------------------------------------------------- anchors, print, phones

test('tutorials: #fig-2 anchors land on the figure; print shows code and hides live frames', async () => {
  for (const name of PAGES) {
    const page = await open(`tutorials/${name}.html#fig-2`);
    await page.waitForFunction(() => document.querySelector('#fig-2 iframe'), null, { timeout: 20000 });
    const top = await page.locator('#fig-2').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(top >= -5 && top < 200, `${name}: #fig-2 is at the top of the viewport (top ${top})`);
    assert.equal(await page.locator('#fig-2 figcaption a.anchor').getAttribute('href'), '#fig-2');
    // Every link of the page (site nav, previous/next, lesson links) resolves.
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.href.split('#')[0]));
    for (const href of new Set(hrefs.filter((h) => h.startsWith(env.url)))) assert.equal((await page.request.get(href)).status(), 200, `${name}: ${href}`);
    await page.waitForFunction(() => document.body.dataset.cellsReady === '1', null, { timeout: 30000 });
    await page.emulateMedia({ media: 'print' });
    const view = await page.evaluate(() => ({
      frame: getComputedStyle(document.querySelector('.fig-frame')).display,
      code: getComputedStyle(document.querySelector('.cell pre.cell-print')).display,
      editor: getComputedStyle(document.querySelector('.cell-code')).display,
      step: getComputedStyle(document.querySelector('.fig-step')).display,
      printed: document.querySelector('.cell pre.cell-print').textContent === document.querySelector('.cell textarea').value,
    }));
    assert.deepEqual(view, { frame: 'none', code: 'block', editor: 'none', step: 'block', printed: true }, name);
    assert.deepEqual(page.errors, [], name);
    await page.close();
  }
});

test('tutorials read on a 390 px phone: nothing wider than the screen', async () => {
  for (const name of PAGES) {
    const page = await openTutorial(name, { width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name}: page is ${overflow}px wider than the phone`);
    const wrap = await page.locator('.cell textarea').first().evaluate((el) => getComputedStyle(el).whiteSpace);
    assert.equal(wrap, 'pre-wrap', 'code wraps on a phone');
    assert.deepEqual(page.errors, [], name);
    await page.close();
  }
});

// ---------------------------------------------------------------- front page

test('front page links the playground, every lesson and every tutorial, and they resolve', async () => {
  const page = await open('index.html');
  const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.href));
  const local = [...new Set(hrefs.filter((h) => h.startsWith(env.url)))];
  for (const href of local) {
    const res = await page.request.get(href.split('#')[0]);
    assert.equal(res.status(), 200, href);
  }
  for (const name of PAGES) assert.ok(local.includes(`${env.url}tutorials/${name}.html`), `front page links ${name}`);
  assert.ok(local.includes(`${env.url}playground.html`));
  // The lesson list's links (the hero's caption links one lesson too).
  const lessonLinks = [...new Set(await page.locator('#lesson-list a[href*="playground.html#lesson="]').evaluateAll((as) => as.map((a) => a.href)))];
  assert.equal(lessonLinks.length, await page.locator('#lesson-list li').count());
  assert.ok(lessonLinks.length >= 10);
  // Every lesson link opens that lesson in the playground.
  const titles = await page.locator('#lesson-list .lesson-title').allTextContents();
  for (const [i, href] of lessonLinks.entries()) {
    const p = await open(href.slice(env.url.length));
    await p.locator('#lesson-title').filter({ hasText: titles[i] }).waitFor({ timeout: 15000 });
    assert.deepEqual(p.errors, [], href);
    await p.close();
  }
  // Old links to the front page still open the playground.
  const old = await open('index.html#lesson=inplace');
  await old.waitForURL(/playground\.html#/);
  await old.waitForFunction(() => document.getElementById('lesson-select')?.value === 'inplace', null, { timeout: 15000 });
  await old.close();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('screenshots: front page and tutorials at 1280×800 and 390×844', async () => {
  await screenshots('front-page');
  for (const name of PAGES) await screenshots(name, 'fig-1');
});
