import test from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS } from '../../web/src/model/lessons.js';
import { lessonProse, PYTHON_PROSE } from '../../web/src/model/lesson-prose.js';
import { stepSentence } from '../../web/src/model/step-text.js';

// What a JavaScript name looks like in prose: registerHook, retainGrad(), hg.tidy, null.
const JS_NAME = /\b[a-z]+[A-Z][A-Za-z]*\b|\bhg\.\w+|\bnull\b|\bundefined\b|JavaScript/g;

test('a lesson read in Python names PyTorch\'s API, never the JavaScript one', () => {
  for (const l of LESSONS) {
    const p = lessonProse(l, 'python');
    const found = [p.title, ...p.text].join(' ').match(JS_NAME);
    assert.equal(found, null, `${l.id}: ${found}`);
    assert.equal(p.text.length, l.text.length, `${l.id}: one paragraph for each of the JS lesson's`);
  }
});

test('the JavaScript reader keeps the lesson as written, and every override names a lesson', () => {
  for (const l of LESSONS) assert.deepEqual(lessonProse(l, 'js'), { title: l.title, text: l.text });
  for (const id of Object.keys(PYTHON_PROSE)) assert.ok(LESSONS.some((l) => l.id === id), id);
  // The paragraphs that need no change are the JS lesson's own.
  const l1 = LESSONS.find((l) => l.id === 'tensor-hooks');
  assert.equal(lessonProse(l1, 'python').text[0], l1.text[0]);
  assert.match(lessonProse(l1, 'python').text[1], /^retain_grad\(\) is a hook/);
});

test('an error that names retain_graph=True gets the JS option only in JavaScript', () => {
  const model = { steps: [], forwardEnd: 0, tensors: new Map(), nodes: new Map(), userHookSteps: [] };
  const error = { message: 'Trying to backward through the graph a second time … Specify retain_graph=True if you need to backward through the graph a second time', line: 4 };
  assert.match(stepSentence(model, 0, {}, error, 'js').text, /In hookgrad: `backward\(undefined, \{ retainGraph: true \}\)`/);
  assert.doesNotMatch(stepSentence(model, 0, {}, error, 'python').text, /In hookgrad/);
});
