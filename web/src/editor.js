// CodeMirror 6 editors: the program editor and small hook-body editors.
import { EditorView, basicSetup } from 'codemirror';
import { javascript } from '@codemirror/lang-javascript';
import { EditorState } from '@codemirror/state';

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
export function createEditor(parent, { doc = '', onChange = () => {}, label = 'Program editor', readOnly = false } = {}) {
  let silent = false;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup, javascript(), theme,
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
