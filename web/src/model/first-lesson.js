// What a page opened at `hash` runs first without a click, known before the
// page's code has loaded (early-runner.js posts it behind the worker's
// init): a built-in lesson — the default one, `#lesson=…`, `#lang=python` —
// chosen as main.js and embed.js choose it, as the JavaScript that draws its
// figure (a lesson's unchanged Python is drawn from its JavaScript twin until
// Python is ready: lang.js). Null for anything else: a `#s=` link's program
// waits for its click and is never run early; a malformed link or an unknown
// lesson falls back to the page's own choice.
import { decodeHash, defaultState } from './state.js';
import { findLesson, DEFAULT_LESSON } from './lessons.js';
import { programOf, lessonLang, figureSource } from './lang.js';

/** { program, semantics } of the first run of a page opened at `hash`, or null. */
export function firstLessonRun(hash) {
  const d = decodeHash(hash);
  if (!d.ok || d.state) return null;
  const lesson = findLesson(d.lesson || DEFAULT_LESSON);
  if (!lesson) return null;
  const lang = lessonLang(lesson, d.lang || 'js');
  const src = figureSource(defaultState(lesson.id, programOf(lesson, lang), lang));
  return src.lang === 'js' ? { program: src.program, semantics: src.semantics } : null;
}
