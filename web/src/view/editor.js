// CodeMirror 6 editors: the program editor and small hook-body editors.
import { EditorView, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection, keymap } from '@codemirror/view';
import { history, historyKeymap, defaultKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, indentOnInput } from '@codemirror/language';
import { EditorState, StateField, StateEffect, Compartment } from '@codemirror/state';
import { Decoration, WidgetType } from '@codemirror/view';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';

// A small setup (no autocomplete/search/lint) keeps the bundle light.
// Tab is not bound: it moves focus out of the editor (a keyboard trap otherwise);
// Ctrl+] / Ctrl+[ indent (defaultKeymap), and `tabIndents` opts into Tab indenting.
const setup = [lineNumbers(), highlightActiveLineGutter(), history(), drawSelection(), indentOnInput(), bracketMatching(), highlightActiveLine(), keymap.of([...defaultKeymap, ...historyKeymap])];
import { tags as t } from '@lezer/highlight';

// Colours from CSS variables, so light and dark mode both read well.
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword], color: 'var(--hl-kw)' },
  { tag: [t.string, t.special(t.string)], color: 'var(--hl-str)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--hl-num)' },
  { tag: [t.comment, t.lineComment, t.blockComment], color: 'var(--hl-com)', fontStyle: 'italic' },
  { tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName))], color: 'var(--hl-fn)' },
  { tag: [t.definition(t.variableName)], color: 'var(--hl-def)' },
  { tag: [t.propertyName], color: 'var(--hl-prop)' },
]);

// Marks drawn over the text: the line (and column) of the run's error, and
// code the inspector just inserted. Set with effects, cleared on any edit.
const setError = StateEffect.define(); const setInserted = StateEffect.define(); const setStep = StateEffect.define();
class Caret extends WidgetType {
  constructor(msg) { super(); this.msg = msg; }
  eq(o) { return o.msg === this.msg; }
  toDOM() { const s = document.createElement('span'); s.className = 'cm-error-caret'; s.textContent = '▲'; s.title = this.msg; s.setAttribute('aria-hidden', 'true'); return s; }
}
const markField = (effect) => StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    for (const e of tr.effects) if (e.is(effect)) return e.value;
    return tr.docChanged ? Decoration.none : deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});
const errorMarks = markField(setError); const insertedMarks = markField(setInserted); const stepMarks = markField(setStep);

const theme = EditorView.theme({
  '.cm-error-line': { backgroundColor: 'var(--err-bg)', boxShadow: 'inset 3px 0 0 var(--err)' },
  '.cm-error-caret': { color: 'var(--err)', fontSize: '10px', verticalAlign: 'text-bottom', margin: '0 1px' },
  '.cm-error-at': { textDecoration: 'underline wavy var(--err)', textUnderlineOffset: '3px' },
  '.cm-inserted': { backgroundColor: 'var(--selection)', transition: 'background-color 1s' },
  '.cm-step-line': { backgroundColor: 'var(--step-line, rgba(250, 200, 60, .28))', boxShadow: 'inset 3px 0 0 var(--accent)' },
  '&': { fontSize: '12.5px', height: '100%', backgroundColor: 'var(--code-bg)', color: 'var(--fg)' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-gutters': { backgroundColor: 'var(--code-bg)', color: 'var(--muted)', border: 'none' },
  '.cm-activeLine': { backgroundColor: 'var(--active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--active-line)' },
  '&.cm-focused': { outline: '2px solid var(--accent)' },
  '.cm-cursor': { borderLeftColor: 'var(--fg)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': { backgroundColor: 'var(--selection) !important' },
});

// The language arrives in a later task (see editor-language.js): an editor
// is usable as plain text at once and highlighted a moment later.
// The first use of lezer's parser compiles its code: one small parse in a task
// of its own keeps that cost out of the task that highlights the editor.
const languages = new Map(); // 'js' | 'python' → Promise<LanguageSupport>
const nextTask = () => new Promise((resolve) => setTimeout(resolve));
function languageModule(lang = 'js') {
  if (!languages.has(lang)) {
    languages.set(lang, lang === 'python'
      ? import('./editor-python.js').then(async ({ python }) => { await nextTask(); const py = python(); py.language.parser.parse('def f(g):\n    return g * 2  # c\n'); await nextTask(); return py; })
      : import('./editor-language.js').then(async ({ javascript }) => {
        await nextTask();
        const js = javascript();
        js.language.parser.parse('const a = f(1, "s"); // c\nfor (let i = 0; i < 2; i++) a.b = (x) => x * 2;');
        await nextTask();
        return js;
      }));
  }
  return languages.get(lang);
}

/** Creates an editor; `onChange(text)` fires on user edits. */
export function createEditor(parent, options = {}) {
  const parts = editorState(options);
  return mountEditor(parent, parts);
}

/**
 * The same, in two tasks: the state (compiling CodeMirror's state code on a
 * cold page), then the view. The page's program editor is created this way
 * so that no single start-up task runs long.
 */
export async function createEditorInTasks(parent, options = {}) {
  const parts = editorState(options);
  await nextTask();
  return mountEditor(parent, parts);
}

function editorState({ doc = '', onChange = () => {}, onRun = null, label = 'Program editor', readOnly = false, tabIndents = false, language = 'js' } = {}) {
  const parts = { lang: new Compartment(), silent: false, state: null, language };
  parts.state = EditorState.create({
    doc,
    extensions: [
      onRun ? keymap.of([{ key: 'Mod-Enter', run: () => { onRun(); return true; } }]) : [],
      tabIndents ? keymap.of([indentWithTab]) : [], setup, parts.lang.of([]), theme, syntaxHighlighting(highlight), EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      EditorState.readOnly.of(readOnly), errorMarks, insertedMarks, stepMarks,
      EditorView.updateListener.of((u) => { if (u.docChanged && !parts.silent) onChange(u.state.doc.toString()); }),
    ],
  });
  return parts;
}

function mountEditor(parent, parts) {
  const view = new EditorView({ parent, state: parts.state });
  // Evaluating the grammar and the first parse are separate tasks too.
  const useLanguage = (lang) => {
    parts.language = lang;
    languageModule(lang).then((support) => { if (parts.language === lang) view.dispatch({ effects: parts.lang.reconfigure(support) }); });
  };
  useLanguage(parts.language);
  return {
    view,
    /** Highlighting and indentation for 'js' or 'python'. */
    setLanguage(lang) { if (lang !== parts.language) useLanguage(lang); },
    get text() { return view.state.doc.toString(); },
    /** Replaces the text without firing onChange. */
    set(text) {
      if (text === view.state.doc.toString()) return;
      parts.silent = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      parts.silent = false;
    },
    focus() { view.focus(); },
    /** Marks the error at 1-based `line` (and `column`, if known) and scrolls it into view; null clears. */
    markError(line, column = null, message = '') {
      const doc = view.state.doc;
      if (line == null || line < 1 || line > doc.lines) { view.dispatch({ effects: setError.of(Decoration.none) }); return false; }
      const l = doc.line(line);
      const ranges = [Decoration.line({ class: 'cm-error-line', attributes: { title: message } }).range(l.from)];
      if (column != null && column >= 1) {
        const at = Math.min(l.from + column - 1, l.to);
        ranges.push(Decoration.widget({ widget: new Caret(message), side: -1 }).range(at));
        const end = Math.min(l.to, at + Math.max(1, (/^[\w$.]+/.exec(doc.sliceString(at, l.to)) || [''])[0].length));
        if (end > at) ranges.push(Decoration.mark({ class: 'cm-error-at' }).range(at, end));
      }
      view.dispatch({ effects: [setError.of(Decoration.set(ranges, true)), EditorView.scrollIntoView(l.from, { y: 'nearest' })] });
      return true;
    },
    /** Marks the 1-based line of the code behind the player's step (the hook now firing) and scrolls to it; null clears. */
    markStep(line, title = '') {
      const doc = view.state.doc;
      if (line == null || line < 1 || line > doc.lines) { view.dispatch({ effects: setStep.of(Decoration.none) }); return; }
      const l = doc.line(line);
      view.dispatch({ effects: setStep.of(Decoration.set([Decoration.line({ class: 'cm-step-line', attributes: { title } }).range(l.from)])) });
      // Only the editor scrolls (EditorView.scrollIntoView would scroll the
      // page too, moving the figure away from a reader who pressed Step).
      const block = view.lineBlockAt(l.from); const sd = view.scrollDOM;
      if (block.top < sd.scrollTop || block.bottom > sd.scrollTop + sd.clientHeight) sd.scrollTop = Math.max(0, block.top - sd.clientHeight / 3);
    },
    /** Highlights lines from..to (1-based) as just inserted and scrolls them into view. */
    markInserted(from, to) {
      const doc = view.state.doc;
      if (from < 1 || from > doc.lines) return;
      const ranges = [];
      for (let i = from; i <= Math.min(to, doc.lines); i++) ranges.push(Decoration.line({ class: 'cm-inserted' }).range(doc.line(i).from));
      view.dispatch({ effects: [setInserted.of(Decoration.set(ranges)), EditorView.scrollIntoView(doc.line(from).from, { y: 'center' })] });
    },
  };
}
