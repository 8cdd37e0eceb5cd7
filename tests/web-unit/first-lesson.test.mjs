// model/first-lesson.js: the run a boot script posts before the page's code
// has loaded must be the one the page then asks for (else it is wasted), and
// never a program that came with a link (those wait for the reader's click).
import test from 'node:test';
import assert from 'node:assert/strict';
import { firstLessonRun } from '../../web/src/model/first-lesson.js';
import { LESSONS, DEFAULT_LESSON, findLesson } from '../../web/src/model/lessons.js';
import { encodeState } from '../../web/src/model/state.js';

test('no hash, #lang=python: the default lesson, as its JavaScript, PyTorch 2 semantics', () => {
  const l = findLesson(DEFAULT_LESSON);
  assert.deepEqual(firstLessonRun(''), { program: l.program, semantics: 'pytorch-2' });
  // Its Python is drawn from the JavaScript twin until Python is ready.
  assert.equal(typeof l.python, 'string');
  assert.deepEqual(firstLessonRun('#lang=python'), { program: l.program, semantics: 'pytorch-2' });
});

test('#lesson=N and #lesson=id: that lesson, in either language as its JavaScript twin', () => {
  for (const l of LESSONS) {
    for (const hash of [`#lesson=${l.n}`, `#lesson=${l.id}`, `#lesson=${l.id}&lang=python`]) {
      const want = hash.endsWith('python') && typeof l.python === 'string' && !l.twin ? null : { program: l.program, semantics: 'pytorch-2' };
      assert.deepEqual(firstLessonRun(hash), want, hash);
    }
  }
});

test('a link with a program of its own, an unknown lesson or a malformed link: nothing runs early', () => {
  const l = findLesson(DEFAULT_LESSON);
  // Even a link whose program is a lesson's, unchanged: the page decides (model/trust.js), not the boot script.
  assert.equal(firstLessonRun(encodeState({ v: 1, lesson: l.id, program: l.program, semantics: 'pytorch-2', step: null, lang: 'js' })), null);
  assert.equal(firstLessonRun(encodeState({ v: 1, lesson: null, program: 'fetch("https://example.com")', semantics: 'pytorch-2', step: null, lang: 'js' })), null);
  assert.equal(firstLessonRun('#lesson=no-such-lesson'), null);
  assert.equal(firstLessonRun('#s=!!!'), null);
});
