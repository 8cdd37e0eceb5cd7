// The JavaScript language for the editors, in a module of its own: its
// grammar is deserialized when the module is evaluated (tens of ms on a slow
// machine), so loading it apart from CodeMirror's core keeps each start-up
// task short. editor.js plugs it in when it arrives.
//
// The language alone (highlighting, indentation, folding data), not
// lang-javascript's javascript(): that one adds completion sources, which
// only an autocompletion() extension would ever call — the editors have none
// — and they would bring @codemirror/autocomplete into the page.
import { javascriptLanguage } from '@codemirror/lang-javascript';
import { LanguageSupport } from '@codemirror/language';

export const javascript = () => new LanguageSupport(javascriptLanguage);
