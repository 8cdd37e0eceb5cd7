// Pure: graph and hook edits as rewrites of the program text. The program is
// the source of truth; the inspector's buttons produce new program text and
// the page runs it again. Hooks added from the inspector live in marked blocks
// so they can be edited, reordered, disabled and removed later.

export const HOOK_KINDS = {
  tensor: { label: 'Tensor hook', target: 'tensor', call: (t, fn) => `${t}.registerHook(${fn})`, params: 'grad', arg: 'grad' },
  'retain-grad': { label: 'retainGrad()', target: 'tensor', call: (t) => `${t}.retainGrad()`, noBody: true, nonLeafOnly: true },
  'post-accumulate': { label: 'Post-accumulate-grad hook', target: 'tensor', call: (t, fn) => `${t}.registerPostAccumulateGradHook(${fn})`, params: 'tensor', leafOnly: true },
  'node-pre': { label: 'Node pre-hook', target: 'node', call: (n, fn) => `${n}.registerPrehook(${fn})`, params: 'gradOutputs', list: true, arg: 'gradOutputs' },
  'node-post': { label: 'Node hook', target: 'node', call: (n, fn) => `${n}.registerHook(${fn})`, params: 'gradInputs, gradOutputs', list: true, arg: 'gradInputs' },
  'module-pre': { label: 'Forward pre-hook', target: 'module', call: (m, fn) => `${m}.registerForwardPreHook(${fn})`, params: 'module, args', list: true, arg: 'args' },
  'module-forward': { label: 'Forward hook', target: 'module', call: (m, fn) => `${m}.registerForwardHook(${fn})`, params: 'module, args, output', arg: 'output' },
  'module-backward': { label: 'Legacy backward hook', target: 'module', call: (m, fn) => `${m}.registerBackwardHook(${fn})`, params: 'module, gradInput, gradOutput', list: true, arg: 'gradInput' },
  'module-full-backward': { label: 'Full backward hook', target: 'module', call: (m, fn) => `${m}.registerFullBackwardHook(${fn})`, params: 'module, gradInput, gradOutput', list: true, arg: 'gradInput' },
  'module-full-backward-pre': { label: 'Full backward pre-hook', target: 'module', call: (m, fn) => `${m}.registerFullBackwardPreHook(${fn})`, params: 'module, gradOutput', list: true, arg: 'gradOutput' },
  'global-forward-pre': { label: 'Global forward pre-hook (all modules)', target: 'global', call: (_, fn) => `hg.registerModuleForwardPreHook(${fn})`, params: 'module, args', list: true, arg: 'args' },
  'global-full-backward-pre': { label: 'Global full backward pre-hook (all modules)', target: 'global', call: (_, fn) => `hg.registerModuleFullBackwardPreHook(${fn})`, params: 'module, gradOutput', list: true, arg: 'gradOutput' },
  'global-forward': { label: 'Global forward hook (all modules)', target: 'global', call: (_, fn) => `hg.registerModuleForwardHook(${fn})`, params: 'module, args, output', arg: 'output' },
  'global-full-backward': { label: 'Global full backward hook (all modules)', target: 'global', call: (_, fn) => `hg.registerModuleFullBackwardHook(${fn})`, params: 'module, gradInput, gradOutput', list: true, arg: 'gradInput' },
};

/** Hook body templates; `x` is the value the hook may replace. */
export const TEMPLATES = {
  print: { label: 'print', body: (x) => `console.log('${x}:', ${x});` },
  scale: { label: 'scale ×2', body: (x, list) => (list ? `return ${x}.map((g) => g && g.mul(2));` : `return ${x}.mul(2);`) },
  add: { label: 'add a constant (+10)', body: (x, list) => (list ? `return ${x}.map((g) => g && g.add(10));` : `return ${x}.add(10);`) },
  zero: { label: 'zero', body: (x, list) => (list ? `return ${x}.map((g) => g && g.mul(0));` : `return ${x}.mul(0);`) },
  inplace: { label: 'in-place mul_(100)', body: (x, list) => (list ? `${x}.forEach((g) => g && g.mul_(100));` : `${x}.mul_(100);`) },
  replace: { label: 'return a new tensor (ones)', body: (x, list) => (list ? `return ${x}.map((g) => g && hg.ones(g.shape));` : `return hg.ones(${x}.shape);`) },
};

const BEGIN = /^\/\/ ── hook (h\d+): (.*) ──$/;
const END = /^\/\/ ── end (h\d+) ──$/;

/** The top-level `const/let/var` names a program declares, in order. */
/** Module variables: `const m = new hg.Module('Name', …)` / `new hg.nn.Linear(…)`. */
export function declaredModules(program) {
  const out = [];
  for (const m of program.matchAll(/^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*new\s+hg\.(?:Module\(\s*['"]([^'"]*)['"]|nn\.(\w+)\()/gm)) out.push({ ref: m[1], name: m[2] || m[3] });
  return out;
}

export function declaredNames(program) {
  const names = [];
  for (const m of program.matchAll(/^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=/gm)) names.push(m[1]);
  return names;
}

/** Line index before which new code goes: the first top-level backward call. */
export function insertionLine(lines) {
  const i = lines.findIndex((l) => /^(?!\/\/)\S.*\.backward\(|^hg\.grad\(/.test(l));
  return i < 0 ? lines.length : i;
}

export function insertBeforeBackward(program, code) {
  const lines = program.replace(/\n$/, '').split('\n');
  const at = insertionLine(lines);
  lines.splice(at, 0, ...code.split('\n'));
  return `${lines.join('\n')}\n`;
}

/**
 * Module hooks must exist before the module runs: insert before the first
 * call of `ref` (any module call for global hooks), else before backward.
 */
export function insertBeforeModuleCall(program, ref, code) {
  const lines = program.replace(/\n$/, '').split('\n');
  const re = ref ? new RegExp(`(^|[^\\w$.])${ref.replace(/[$]/g, '\\$')}\\.(call|callWithKwargs|callArgs)\\(`) : /\.(call|callWithKwargs|callArgs)\(/;
  const at = lines.findIndex((l) => /^\S/.test(l) && !l.startsWith('//') && re.test(l));
  if (at < 0) return insertBeforeBackward(program, code);
  lines.splice(at, 0, ...code.split('\n'));
  return `${lines.join('\n')}\n`;
}

export function nextHookId(program) {
  let n = 0;
  for (const m of program.matchAll(/^\/\/ ── hook h(\d+):/gm)) n = Math.max(n, Number(m[1]));
  const taken = new Set(declaredNames(program));
  do n++; while (taken.has(`h${n}`));
  return `h${n}`;
}

/** Code of a new hook block. `ref` is the JS expression of the target. */
export function hookBlock({ id, kind, ref, template = 'print', targetLabel = ref, body = null }) {
  const k = HOOK_KINDS[kind]; if (!k) throw new Error(`unknown hook kind ${kind}`);
  const head = `// ── hook ${id}: ${k.label} on ${targetLabel} ──`;
  if (k.noBody) return `${head}\n${k.call(ref)};\n// ── end ${id} ──`;
  const b = body ?? TEMPLATES[template].body(k.arg || 'x', !!k.list);
  const fname = `${template}Hook`.replace(/[^\w$]/g, '');
  return `${head}\nconst ${id} = ${k.call(ref, `function ${fname}(${k.params}) {\n  ${b.split('\n').join('\n  ')}\n}`)};\n// ── end ${id} ──`;
}

/** Finds the hook blocks in a program. */
export function parseHookBlocks(program) {
  const lines = program.split('\n'); const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const m = BEGIN.exec(lines[i]); if (!m) continue;
    const j = lines.findIndex((l, x) => x > i && END.test(l) && END.exec(l)[1] === m[1]);
    if (j < 0) continue;
    const inner = lines.slice(i + 1, j);
    const disabled = inner.length > 0 && inner.every((l) => l.startsWith('// '));
    blocks.push({ id: m[1], title: m[2], start: i, end: j, disabled, removed: inner.some((l) => l.replace(/^\/\/ /, '') === `${m[1]}.remove();`), inner });
  }
  return blocks;
}

function editBlock(program, id, fn) {
  const lines = program.split('\n');
  const b = parseHookBlocks(program).find((x) => x.id === id); if (!b) return program;
  const replacement = fn(b, lines);
  lines.splice(b.start, b.end - b.start + 1, ...replacement);
  return lines.join('\n');
}

export const removeBlock = (program, id) => editBlock(program, id, () => []);

export const toggleDisabled = (program, id) => editBlock(program, id, (b, lines) => [
  lines[b.start], ...b.inner.map((l) => (b.disabled ? l.replace(/^\/\/ /, '') : `// ${l}`)), lines[b.end]]);

export const toggleHandleRemove = (program, id) => editBlock(program, id, (b, lines) => {
  const inner = b.removed ? b.inner.filter((l) => l.replace(/^\/\/ /, '') !== `${id}.remove();`) : [...b.inner, `${b.disabled ? '// ' : ''}${id}.remove();`];
  return [lines[b.start], ...inner, lines[b.end]];
});

/** Replaces the code between a block's markers (the hook editor's Save). */
export const setBlockCode = (program, id, code) => editBlock(program, id, (b, lines) => [lines[b.start], ...code.replace(/\n$/, '').split('\n'), lines[b.end]]);

/** Swaps a block with its neighbour block (dir −1 or +1): hook order = registration order. */
export function moveBlock(program, id, dir) {
  const blocks = parseHookBlocks(program);
  const i = blocks.findIndex((b) => b.id === id); const j = i + dir;
  if (i < 0 || j < 0 || j >= blocks.length) return program;
  const lines = program.split('\n');
  const [first, second] = i < j ? [blocks[i], blocks[j]] : [blocks[j], blocks[i]];
  const A = lines.slice(first.start, first.end + 1); const B = lines.slice(second.start, second.end + 1);
  const between = lines.slice(first.end + 1, second.start);
  lines.splice(first.start, second.end - first.start + 1, ...B, ...between, ...A);
  return lines.join('\n');
}

// ---- graph edits ----
const num = (v) => JSON.stringify(v);

export function addLeaf(program, { name, value = 1 }) {
  return insertBeforeBackward(program, `const ${name} = hg.tensor(${num(value)}, { requiresGrad: true, name: '${name}' }); // added in the graph`);
}

export const OPS = { add: 2, sub: 2, mul: 2, div: 2, matmul: 2, exp: 1, log: 1, sin: 1, cos: 1, tanh: 1, sigmoid: 1, relu: 1, neg: 1, sum: 1, mean: 1 };

export function applyOp(program, { op, inputs, name }) {
  if (!(op in OPS)) throw new Error(`unknown op ${op}`);
  const [a, b] = inputs;
  const expr = OPS[op] === 2 ? `${a}.${op}(${b ?? a})` : `${a}.${op}()`;
  return insertBeforeBackward(program, `const ${name} = ${expr}; ${name}.name = '${name}'; // added in the graph`);
}

/** Changes the value in `const name = hg.tensor(VALUE, …)`; null if not found. */
export function setLeafValue(program, name, value) {
  const re = new RegExp(`^((?:const|let|var)\\s+${name}\\s*=\\s*hg\\.tensor\\()(\\[[^\\n]*\\]|[^,{[]+?)(\\s*[,)])`, 'm');
  if (!re.test(program)) return null;
  return program.replace(re, (_, pre, __, post) => `${pre}${num(value)}${post}`);
}

/**
 * Splits a program into top-level chunks: a chunk ends at a newline outside
 * any bracket, string or comment, so a multi-line hook registration is one chunk.
 */
export function splitTopLevel(program) {
  const chunks = []; let start = 0; let depth = 0; let i = 0;
  while (i < program.length) {
    const ch = program[i]; const next = program[i + 1];
    if (ch === '/' && next === '/') { while (i < program.length && program[i] !== '\n') i++; continue; }
    if (ch === '/' && next === '*') { const end = program.indexOf('*/', i + 2); i = end < 0 ? program.length : end + 2; continue; }
    if (ch === "'" || ch === '"' || ch === '`') {
      i++;
      while (i < program.length && program[i] !== ch) { if (program[i] === '\\') i++; if (ch !== '`' && program[i] === '\n') break; i++; }
      i++; continue;
    }
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
    else if (ch === '\n' && depth === 0) { chunks.push(program.slice(start, i + 1)); start = i + 1; }
    i++;
  }
  if (start < program.length) chunks.push(program.slice(start));
  return chunks;
}

/**
 * Deletes a variable: every top-level statement that mentions it, and then,
 * in turn, the variables those statements declared (their uses would break).
 */
export function deleteVariable(program, name) {
  let chunks = splitTopLevel(program);
  const gone = [name];
  const mentions = (c, v) => new RegExp(`(^|[^\\w$.'"])${v.replace(/[$]/g, '\\$')}(?![\\w$'"])`).test(c.replace(/\/\/.*$/gm, ''));
  for (let k = 0; k < gone.length; k++) {
    const v = gone[k];
    const keep = [];
    for (const c of chunks) {
      if (mentions(c, v)) { for (const d of declaredNames(c)) if (!gone.includes(d)) gone.push(d); } else keep.push(c);
    }
    chunks = keep;
  }
  return chunks.join('');
}

/** Wraps existing variables' computation in a module: out = Wrapped(inputs). */
export function wrapInModule(program, { moduleName, inputs, output, body }) {
  const params = inputs.join(', ');
  return insertBeforeBackward(program, [
    `const ${moduleName.toLowerCase()} = new hg.Module('${moduleName}', (${params}) => ${body});`,
    `const ${output} = ${moduleName.toLowerCase()}.call(${params}); ${output}.name = '${output}'; // wrapped in the graph`,
  ].join('\n'));
}

/**
 * Wraps the computation of one variable in a module, in place:
 * `const y = a.mul(b); y.name = 'y';` becomes a Module whose forward is that
 * expression over the variables it uses, and `const y = yModule.call(a, b)`.
 */
export function wrapVariableInModule(program, name, moduleName) {
  const lines = program.split('\n');
  const re = new RegExp(`^(const|let|var)\\s+${name}\\s*=\\s*([^;]+);(.*)$`);
  const i = lines.findIndex((l) => re.test(l));
  if (i < 0) return null;
  const [, kw, expr, rest] = re.exec(lines[i]);
  if (/^\s*hg\.tensor\(/.test(expr) || /\.call\(/.test(expr)) return null;
  const before = declaredNames(lines.slice(0, i).join('\n'));
  const inputs = before.filter((v) => new RegExp(`(^|[^\\w$.])${v.replace(/[$]/g, '\\$')}(?![\\w$])`).test(expr));
  if (!inputs.length) return null;
  const mod = `${name}Module`;
  lines.splice(i, 1,
    `const ${mod} = new hg.Module('${moduleName}', (${inputs.join(', ')}) => ${expr.trim()}); // wrapped in the graph`,
    `${kw} ${name} = ${mod}.call(${inputs.join(', ')});${rest}`);
  return lines.join('\n');
}

/** 1-based line range of `after` that differs from `before` (what an edit inserted or changed), or null. */
export function changedLineRange(before, after) {
  const A = before.split('\n'); const B = after.split('\n');
  let i = 0; while (i < A.length && i < B.length && A[i] === B[i]) i++;
  let j = 0; while (j < A.length - i && j < B.length - i && A[A.length - 1 - j] === B[B.length - 1 - j]) j++;
  const from = i + 1; const to = B.length - j;
  return to >= from ? { from, to } : null;
}
