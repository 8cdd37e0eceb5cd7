// The Python language for the editors (highlighting, indentation, folding),
// loaded only when a reader picks Python: a JS-only page never evaluates its
// grammar. As for JavaScript (editor-language.js), the language alone, not
// lang-python's python() with its completion sources. Python indents by
// four spaces, as PyTorch's examples and the hooks video do.
import { pythonLanguage } from '@codemirror/lang-python';
import { LanguageSupport, indentUnit } from '@codemirror/language';

export const python = () => new LanguageSupport(pythonLanguage, [indentUnit.of('    ')]);
