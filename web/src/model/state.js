// Pure: the one serializable scenario state ↔ URL hash.
// `#lesson=5` opens a lesson; `#s=<base64url(JSON)>` holds a whole scenario
// (program, semantics, step, lesson id, language); `&lang=python` picks the
// language (for a lesson: its Python program; JavaScript when absent). Anything malformed or oversized is
// rejected with a message so the page can fall back to the default lesson.

export const MAX_HASH = 60000; // characters; larger links are refused
export const MAX_PROGRAM = 40000;
export const SEMANTICS = ['pytorch-2', 'pytorch-1'];
export const LANGS = ['js', 'python'];

export function defaultState(lessonId = null, program = '', lang = 'js') {
  return { v: 1, lesson: lessonId, program, semantics: 'pytorch-2', step: null, lang };
}

/** `python` / `py` → 'python'; anything else → 'js'. */
export const readLang = (x) => (x === 'python' || x === 'py' ? 'python' : 'js');

function b64urlEncode(str) {
  const bytes = new TextEncoder().encode(str);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function b64urlDecode(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('not base64url');
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** State → hash string (with the leading '#'). */
export function encodeState(state) {
  const s = { v: 1, program: state.program, semantics: state.semantics };
  if (state.lesson != null) s.lesson = state.lesson;
  if (Number.isInteger(state.step)) s.step = state.step;
  // JavaScript links stay as they were before Python (no `lang` key).
  if (state.lang === 'python') s.lang = 'python';
  return `#s=${b64urlEncode(JSON.stringify(s))}`;
}

/** Validates a decoded object; returns a clean state or throws. */
export function validateState(o) {
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('not an object');
  if (o.v !== 1) throw new Error('unknown version');
  if (typeof o.program !== 'string') throw new Error('no program');
  if (o.program.length > MAX_PROGRAM) throw new Error('program too long');
  const semantics = o.semantics === undefined ? 'pytorch-2' : o.semantics;
  if (!SEMANTICS.includes(semantics)) throw new Error('unknown semantics');
  const lesson = o.lesson === undefined || o.lesson === null ? null : String(o.lesson).slice(0, 40);
  const step = Number.isInteger(o.step) && o.step >= 0 && o.step < 1e6 ? o.step : null;
  if (o.lang !== undefined && !LANGS.includes(o.lang)) throw new Error('unknown language');
  return { v: 1, lesson, program: o.program, semantics, step, lang: o.lang || 'js' };
}

/**
 * Hash → { ok: true, state } | { ok: true, lesson } | { ok: false, error } |
 * { ok: true, empty: true }. Never throws.
 */
export function decodeHash(hash) {
  const h = (hash || '').replace(/^#/, '');
  if (!h) return { ok: true, empty: true };
  if (h.length > MAX_HASH) return { ok: false, error: `This link is too long (${h.length} characters; the limit is ${MAX_HASH}).` };
  const params = new URLSearchParams(h);
  if (params.has('lesson') && !params.has('s')) {
    const lesson = params.get('lesson');
    if (!/^[a-z0-9-]{1,40}$/i.test(lesson)) return { ok: false, error: 'This link names a lesson that does not exist.' };
    return { ok: true, lesson, lang: readLang(params.get('lang')) };
  }
  if (!params.has('s')) {
    // `#lang=python` alone: the default lesson, in Python.
    if (params.has('lang') && [...params.keys()].every((k) => k === 'lang')) return { ok: true, empty: true, lang: readLang(params.get('lang')) };
    return { ok: false, error: 'This link does not contain a hookgrad scenario.' };
  }
  try {
    const state = validateState(JSON.parse(b64urlDecode(params.get('s'))));
    if (params.has('lang')) state.lang = readLang(params.get('lang'));
    return { ok: true, state };
  } catch (e) {
    return { ok: false, error: `This link is damaged and could not be opened (${e.message}).` };
  }
}
