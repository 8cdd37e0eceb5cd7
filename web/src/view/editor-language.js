// The JavaScript language for the editors, in a module of its own: its
// grammar is deserialized when the module is evaluated (tens of ms on a slow
// machine), so loading it apart from CodeMirror's core keeps each start-up
// task short. editor.js plugs it in when it arrives.
export { javascript } from '@codemirror/lang-javascript';
