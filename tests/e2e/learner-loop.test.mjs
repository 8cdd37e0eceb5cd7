// The learner's loop around the figure: Tab leaves the editor, the camera
// keeps the tensor whose .grad just changed in view, Stop ends a runaway run.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, runLinked, waitForRun, toEnd, consoleText, ROOT, SHOTS } from './helpers.mjs';
import { encodeState } from '../../web/src/model/state.js';

const scenario = (program) => encodeState({ program, semantics: 'pytorch-2', lesson: null });

/** The editor's error marker: 1-based line of the marked line, and the caret's column. */
async function errorMarker(page) {
  // The editor is loaded lazily: on a busy machine the marker comes a little later.
  await page.locator('#editor .cm-error-line').first().waitFor({ timeout: 10000 }).catch(() => {});
  return page.evaluate(() => {
    const line = document.querySelector('#editor .cm-error-line');
    if (!line) return null;
    const lines = [...document.querySelectorAll('#editor .cm-line')];
    const caret = line.querySelector('.cm-error-caret');
    let column = null;
    if (caret) { // characters before the caret on its line
      const r = document.createRange(); r.setStart(line, 0); r.setEndBefore(caret); column = r.toString().length + 1;
    }
    return { line: lines.indexOf(line) + 1, column, text: line.textContent };
  });
}

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

test('a forward-only lesson opens at its first step with a forward story, and ends saying there is no backward to play', async () => {
  const page = await env.page('#lesson=module-forward');
  await waitForRun(page);
  assert.match(await page.locator('#step-text').textContent(), /runs forward only/);
  assert.match(await page.locator('#step-count').textContent(), /^0 \//);
  await toEnd(page);
  assert.match(await page.locator('#step-text').textContent(), /no backward pass to play/);
  await page.close();
});

test('the full backward hook row lights up when it fires', async () => {
  const FULL = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'pytorch.json'), 'utf8')).scenarios.module_full_backward_Mul3;
  // Lesson 5: the twin Mul3 (the full hook's) is collapsed at first view so the figure reads whole: open it.
  const page = await env.page('#lesson=legacy-hook');
  await waitForRun(page);
  const collapsed = page.getByRole('button', { name: /^Expand module Mul3/ });
  assert.equal(await collapsed.count(), 1, 'the full-hook Mul3 is collapsed at first view');
  await collapsed.click();
  // The record that carries the full hook: the BackwardHookFunctionBackward of the module's inputs.
  const carrier = page.locator('#graph [data-node]').filter({ has: page.locator('.badge-count') }).filter({ hasText: 'BackwardHookFunctionBackward' });
  await carrier.first().waitFor({ timeout: 5000 });
  assert.equal(await page.locator('#graph .hook-fired, #graph .badge-row.fired').filter({ hasText: 'BackwardHookFunctionBackward' }).count(), 0, 'not lit before backward');
  await toEnd(page);
  await page.waitForTimeout(200);
  assert.match(await carrier.first().getAttribute('class'), /\bhook-fired\b/, 'the record of the fired full backward hook is lit');
  await carrier.first().click();
  const row = page.locator('.hooklist li.fired').filter({ hasText: 'full backward hook' });
  assert.equal(await row.count(), 1, 'its row in the inspector is lit');
  assert.match(await row.textContent(), new RegExp(`fullHook.*\\(${FULL.grad_input.map((v) => `${v}\\.`).join(', ')}\\)`));
  // The merged record carries the node's hook badge (the record view has no separate row at this level of detail).
  assert.equal(await carrier.first().locator('.badge-count').count(), 1);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Tab order: the player comes before the program editor', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  await page.getByRole('button', { name: 'Run', exact: true }).focus();
  const seen = [];
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const who = await page.evaluate(() => {
      const a = document.activeElement;
      if (a.closest('.cm-editor')) return 'editor';
      return a.id || a.getAttribute('aria-label') || a.tagName;
    });
    seen.push(who);
    if (who === 'editor') break;
  }
  const iEditor = seen.indexOf('editor');
  assert.ok(iEditor > 0, `Tab reaches the editor: ${seen.join(' → ')}`);
  for (const id of ['backward-btn', 'play-btn', 'step-btn', 'scrub']) {
    const i = seen.indexOf(id);
    assert.ok(i >= 0 && i < iEditor, `${id} before the editor: ${seen.join(' → ')}`);
  }
  // And backwards: Shift+Tab from the editor's first stop goes back towards the player, not the lesson text.
  await page.close();
});

test('a syntax error shows its line and column and a marker in the editor', async () => {
  const program = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = a.mul(3);
const c = b.add(;
c.backward();`;
  const page = await env.linkedPage(scenario(program));
  await page.waitForFunction(() => /line 3/.test(document.getElementById('step-text').textContent), null, { timeout: 15000 });
  const text = await page.locator('#step-text').textContent();
  // V8's own message and place: "Unexpected token ';'" at line 3, column 17 (the ';').
  assert.match(text, /Error \(line 3, column 17\): SyntaxError: Unexpected token ';'/);
  // The status line follows once the figure is fitted (two frames later on a slow machine).
  await page.waitForFunction(() => /error at line 3/.test(document.getElementById('program-status').textContent), null, { timeout: 5000 });
  await page.waitForFunction(() => document.querySelector('#editor .cm-error-line'));
  const m = await errorMarker(page);
  assert.equal(m.line, 3); assert.equal(m.column, 17); assert.match(m.text.replace('▲', ''), /b\.add\(;/);
  // Editing clears the marker.
  await page.locator('.cm-content').click();
  await page.keyboard.press('End'); await page.keyboard.type(' ');
  assert.equal(await errorMarker(page), null);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a runtime error inside a hook and in the program show line and column and a marker', async () => {
  const hookProgram = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const c = a.mul(3); c.name = 'c';

c.registerHook(function broken(grad) {
  return grad.nope.mul(2);
});
c.backward();`;
  let page = await env.linkedPage(scenario(hookProgram));
  await waitForRun(page); await toEnd(page);
  let text = await page.locator('#step-text').textContent();
  // The engine rethrows in PyTorch's words with the hook's own exception as
  // `cause`; the page points at the line inside the hook that threw.
  assert.match(text, /Error \(line 5, column \d+, in hook broken, thrown here\): RuntimeError: tensor hook 'broken' on tensor 'c' raised an error: Cannot read properties of undefined/);
  const column = Number(/column (\d+)/.exec(text)[1]);
  let m = await errorMarker(page);
  assert.equal(m.line, 5); assert.equal(m.column, column); assert.match(m.text.replace('▲', ''), /grad\.nope\.mul/);
  await page.close();

  const plain = `const a = hg.tensor([1, 2], { requiresGrad: true, name: 'a' });
const b = hg.tensor([1, 2, 3], { name: 'b' });
const c = a.add(1);
  const d = c.mul(b);`;
  page = await env.linkedPage(scenario(plain));
  await page.waitForFunction(() => /line 4/.test(document.getElementById('step-text').textContent), null, { timeout: 15000 });
  text = await page.locator('#step-text').textContent();
  assert.match(text, /Error \(line 4, column 15\): RuntimeError: The size of tensor a \(2\) must match the size of tensor b \(3\)/);
  m = await errorMarker(page);
  assert.equal(m.line, 4); assert.equal(m.column, 15);
  await page.close();
});

test('a program that fails before the editor has loaded still gets its marker', async () => {
  // On a slow machine a forward error can finish before CodeMirror is ready;
  // the marker used to be dropped then. Hold the editor's chunk back to force it.
  const program = `const a = hg.tensor([1, 2], { requiresGrad: true, name: 'a' });
const b = hg.tensor([1, 2, 3], { name: 'b' });
  const d = a.mul(b);`;
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
  let released; const gate = new Promise((r) => { released = r; });
  await page.route(/\/editor-[^/]*\.js$/, async (route) => { await gate; await route.continue(); });
  await page.goto(`${env.url}playground.html${scenario(program)}`);
  await runLinked(page);
  await page.waitForFunction(() => /line 3/.test(document.getElementById('step-text').textContent), null, { timeout: 15000 });
  assert.equal(await page.locator('#editor .cm-error-line').count(), 0, 'the editor was not held back');
  released();
  const m = await errorMarker(page);
  assert.equal(m?.line, 3); assert.equal(m.column, 15);
  await page.close();
});

test('the console keeps what a runaway hook printed before it was stopped, and names the hook', async () => {
  const program = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const c = a.mul(3); c.name = 'c';
console.log('before backward');
c.registerHook(function spin(grad) {
  console.log('spin got', grad);
  for (;;) {}
});
c.backward();`;
  const page = await env.linkedPage(scenario(program));
  await page.getByRole('button', { name: 'Stop the running program' }).waitFor({ timeout: 10000 });
  await page.waitForTimeout(800);
  await page.getByRole('button', { name: 'Stop the running program' }).click();
  await page.waitForFunction(() => /Stopped: you pressed Stop/.test(document.body.textContent), null, { timeout: 5000 });
  const out = await consoleText(page);
  assert.match(out, /before backward/);
  assert.match(out, /spin got tensor\(1\.\)/);
  assert.match(out, /printed by spin \(line 5\)/);
  assert.match(await page.locator('#step-text').textContent(), /line 5, in spin/);
  assert.equal((await errorMarker(page))?.line, 5);
  assert.equal(await page.getByRole('button', { name: 'Run', exact: true }).isEnabled(), true);
  await page.close();
});

test('a PyTorch message that names a Python option also names the JS one', async () => {
  const program = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const c = a.mul(a);
c.backward();
c.backward();`;
  const page = await env.linkedPage(scenario(program));
  await waitForRun(page); await toEnd(page);
  const text = await page.locator('#step-text').textContent();
  assert.match(text, /Specify retain_graph=True/, 'the engine keeps PyTorch\'s words');
  assert.match(text, /In hookgrad: `?backward\(undefined, \{ retainGraph: true \}\)/);
  await page.close();
});

test('390×844: no sideways scroll, every button and input at least 40 px tall', async () => {
  for (const lesson of ['tensor-hooks', 'legacy-hook']) {
    const page = await env.page(`#lesson=${lesson}`, { width: 390, height: 844 });
    await waitForRun(page);
    const r = await page.evaluate(() => {
      const small = [...document.querySelectorAll('button, input, select, [role=button]:not(svg *), a.btn, .semantics label')].filter((e) => {
        if (e.closest('svg, dialog:not([open]), [hidden]') || e.matches('input[type=radio]')) return false;
        const b = e.getBoundingClientRect();
        return b.width > 0 && b.height > 0 && b.height < 40;
      }).map((e) => `${e.id || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 20)} (${Math.round(e.getBoundingClientRect().height)} px)`);
      return { scrollWidth: document.scrollingElement.scrollWidth, innerWidth, small };
    });
    await page.screenshot({ path: path.join(SHOTS, `phone-${lesson}.png`) });
    assert.ok(r.scrollWidth <= r.innerWidth, `${lesson}: scrollWidth ${r.scrollWidth} ≤ ${r.innerWidth}`);
    assert.deepEqual(r.small, [], `${lesson}: tap targets under 40 px`);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('the inspector\'s hook editor scrolls into view and inserted code is highlighted', async () => {
  const page = await env.page('#lesson=tensor-hooks');
  await waitForRun(page);
  await page.locator('#graph [data-tensor]').filter({ hasText: /^c/ }).first().click();
  await page.getByRole('button', { name: 'Attach hook' }).first().click();
  await waitForRun(page);
  await page.waitForFunction(() => document.querySelectorAll('#editor .cm-inserted').length > 0, null, { timeout: 5000 });
  const ins = await page.locator('#editor .cm-inserted').allTextContents();
  assert.match(ins.join('\n'), /registerHook/, 'the inserted lines are the new hook');
  await page.getByRole('button', { name: /^Edit hook / }).first().click();
  const box = page.getByRole('dialog', { name: /^Edit hook / });
  await box.waitFor();
  const inView = await box.evaluate((el) => {
    const r = el.getBoundingClientRect(); const p = el.closest('.inspector-pane').getBoundingClientRect();
    return r.top >= p.top - 1 && r.top < p.bottom && r.top >= 0 && r.top < innerHeight;
  });
  assert.ok(inView, 'the hook editor is visible');
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
