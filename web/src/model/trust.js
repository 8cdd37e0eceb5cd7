// Pure: does a scenario from a link run at once, or only after the reader's
// click ("Run this program")? A link can carry any program, written by
// anyone; it runs in the sandbox either way (sandbox/host.js), but it runs
// only when the reader asks — unless it is one of hookgrad's own lessons,
// unchanged (then the link is just a way to open that lesson).
import { findLesson } from './lessons.js';
import { flipSwitch } from './lesson-switch.js';

/** The programs a lesson ships (its JavaScript, and its Python when it has one; a surprise lesson's switched sides too). */
export function lessonPrograms(lesson) {
  if (!lesson) return [];
  const own = [lesson.program, lesson.python].filter((p) => typeof p === 'string');
  if (!lesson.switch) return own;
  return [...own, flipSwitch(lesson.program, lesson.switch.js), flipSwitch(lesson.python, lesson.switch.python)];
}

/** True if `state` (a decoded #s= link) is a built-in lesson's own program. */
export function isBuiltInScenario(state) {
  if (!state || state.lesson == null) return false;
  const norm = (s) => String(s).replace(/\r\n/g, '\n').trimEnd();
  return lessonPrograms(findLesson(state.lesson)).some((p) => norm(p) === norm(state.program));
}
