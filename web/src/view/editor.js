// CodeMirror 6 editors: the program editor and small hook-body editors.
import { EditorView, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection, keymap } from '@codemirror/view';
import { history, historyKeymap, defaultKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, indentOnInput } from '@codemirror/language';
import { javascript } from '@codemirror/lang-javascript';
import { EditorState } from '@codemirror/state';
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

const theme = EditorView.theme({
  '&': { fontSize: '12.5px', height: '100%', backgroundColor: 'var(--code-bg)', color: 'var(--fg)' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-gutters': { backgroundColor: 'var(--code-bg)', color: 'var(--muted)', border: 'none' },
  '.cm-activeLine': { backgroundColor: 'var(--active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--active-line)' },
  '&.cm-focused': { outline: '2px solid var(--accent)' },
  '.cm-cursor': { borderLeftColor: 'var(--fg)' },
  '.cm-selectionBackground, &.cm-focused .cm-selectionBackground': { backgroundColor: 'var(--selection) !important' },
});

/** Creates an editor; `onChange(text)` fires on user edits. */
export function createEditor(parent, { doc = '', onChange = () => {}, onRun = null, label = 'Program editor', readOnly = false, tabIndents = false } = {}) {
  let silent = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        onRun ? keymap.of([{ key: 'Mod-Enter', run: () => { onRun(); return true; } }]) : [],
        tabIndents ? keymap.of([indentWithTab]) : [], setup, javascript(), theme, syntaxHighlighting(highlight), EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorState.readOnly.of(readOnly),
        EditorView.updateListener.of((u) => { if (u.docChanged && !silent) onChange(u.state.doc.toString()); }),
      ],
    }),
  });
  return {
    view,
    get text() { return view.state.doc.toString(); },
    /** Replaces the text without firing onChange. */
    set(text) {
      if (text === view.state.doc.toString()) return;
      silent = true;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      silent = false;
    },
    focus() { view.focus(); },
  };
}
