// Pure: which program a page runs for a scenario in a given language. Every
// lesson has a JavaScript program and (issue 30) a Python one — PyTorch code,
// the hooks video's scripts where the lesson comes from the video — that give
// the same graph and trace (tests/node/lesson-twins.test.mjs). So while
// Pyodide loads, a lesson's figure comes from its JavaScript twin at once;
// the Python runs as soon as Python is ready (its printed lines are PyTorch's).
import { findLesson } from './lessons.js';

/** The lesson's program in `lang` (its JavaScript if it has no Python yet). */
export function programOf(lesson, lang) {
  return lang === 'python' && typeof lesson?.python === 'string' ? lesson.python : lesson?.program ?? '';
}

/** The language a lesson can be shown in: Python only if it has a Python program. */
export function lessonLang(lesson, lang) {
  return lang === 'python' && typeof lesson?.python === 'string' ? 'python' : 'js';
}

/**
 * What the controller runs for `state` ({program, semantics, lesson, lang}):
 * `{program, semantics, lesson, lang, twin}`. `twin` is true when a lesson's
 * unchanged Python is stood in for by its JavaScript because Python is not
 * ready yet.
 */
export function figureSource(state, { pythonReady = false } = {}) {
  const lesson = state.lesson ? findLesson(state.lesson) : null;
  const lang = state.lang === 'python' ? 'python' : 'js';
  const src = { program: state.program, semantics: state.semantics, lesson, lang, twin: false };
  if (lang === 'python' && !pythonReady && lesson?.twin && typeof lesson.python === 'string' && state.program === lesson.python) {
    return { ...src, program: lesson.program, lang: 'js', twin: true };
  }
  return src;
}
