import test from 'node:test';
import assert from 'node:assert/strict';
import * as PE from '../../web/src/model/program-edit.js';

const prog = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor([1, 2], { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';
c.sum().backward();
console.log(a.grad);
`;

test('declared names and insertion before the first backward', () => {
  assert.deepEqual(PE.declaredNames(prog), ['a', 'b', 'c']);
  const p = PE.insertBeforeBackward(prog, '// here');
  assert.equal(p.split('\n')[3], '// here');
  assert.equal(PE.insertBeforeBackward('const x = 1;', 'y').split('\n')[1], 'y');
});

test('hook blocks: add, parse, disable, handle.remove(), reorder, edit, delete', () => {
  let p = PE.insertBeforeBackward(prog, PE.hookBlock({ id: PE.nextHookId(prog), kind: 'tensor', ref: 'c', template: 'scale' }));
  assert.match(p, /const h1 = c\.registerHook\(function scaleHook\(grad\) \{\n {2}return grad\.mul\(2\);\n\}\);/);
  p = PE.insertBeforeBackward(p, PE.hookBlock({ id: PE.nextHookId(p), kind: 'retain-grad', ref: 'c' }));
  let blocks = PE.parseHookBlocks(p);
  assert.deepEqual(blocks.map((b) => b.id), ['h1', 'h2']);
  p = PE.toggleDisabled(p, 'h1');
  assert.ok(PE.parseHookBlocks(p)[0].disabled);
  assert.match(p, /^\/\/ const h1/m);
  p = PE.toggleDisabled(p, 'h1');
  assert.ok(!PE.parseHookBlocks(p)[0].disabled);
  p = PE.toggleHandleRemove(p, 'h1');
  assert.ok(PE.parseHookBlocks(p)[0].removed);
  assert.match(p, /^h1\.remove\(\);$/m);
  p = PE.moveBlock(p, 'h2', -1);
  assert.deepEqual(PE.parseHookBlocks(p).map((b) => b.id), ['h2', 'h1']);
  p = PE.setBlockCode(p, 'h2', 'c.retainGrad(); // edited');
  assert.match(p, /edited/);
  p = PE.removeBlock(p, 'h1'); p = PE.removeBlock(p, 'h2');
  assert.equal(p, prog);
});

test('graph edits', () => {
  assert.match(PE.addLeaf(prog, { name: 'x1', value: 5 }), /const x1 = hg\.tensor\(5, \{ requiresGrad: true, name: 'x1' \}\);/);
  assert.match(PE.applyOp(prog, { op: 'mul', inputs: ['a', 'c'], name: 'y1' }), /const y1 = a\.mul\(c\); y1\.name = 'y1';/);
  assert.match(PE.setLeafValue(prog, 'a', 7), /const a = hg\.tensor\(7, \{/);
  assert.match(PE.setLeafValue(prog, 'b', [3, 4]), /const b = hg\.tensor\(\[3,4\], \{/);
  assert.equal(PE.setLeafValue(prog, 'c', 1), null);
  const d = PE.deleteVariable(prog, 'c');
  assert.equal(d, "const a = hg.tensor(2, { requiresGrad: true, name: 'a' });\nconst b = hg.tensor([1, 2], { requiresGrad: true, name: 'b' });\nconsole.log(a.grad);\n");
  assert.match(PE.wrapInModule(prog, { moduleName: 'Block', inputs: ['a', 'b'], output: 'z', body: 'a.mul(b)' }), /new hg\.Module\('Block', \(a, b\) => a\.mul\(b\)\)/);
});

test('module declarations', () => {
  assert.deepEqual(PE.declaredModules("const net = new hg.Module('SumNet', (a) => a);\nconst lin = new hg.nn.Linear(3, 1);"), [{ ref: 'net', name: 'SumNet' }, { ref: 'lin', name: 'Linear' }]);
});

test('wrap a variable in a module', () => {
  const p = PE.wrapVariableInModule(prog, 'c', 'Block');
  assert.match(p, /^const cModule = new hg\.Module\('Block', \(a, b\) => a\.mul\(b\)\); \/\/ wrapped in the graph$/m);
  assert.match(p, /^const c = cModule\.call\(a, b\); c\.name = 'c';$/m);
  assert.equal(PE.wrapVariableInModule(prog, 'a', 'X'), null, 'a leaf has no op to wrap');
});

test('module hooks go before the module is called', () => {
  const p = "const net = new hg.Module('Net', (x) => x.mul(2));\nconst x = hg.tensor(1, { requiresGrad: true });\nconst y = net.call(x);\ny.backward();\n";
  const code = PE.hookBlock({ id: 'h1', kind: 'module-forward', ref: 'net', template: 'print' });
  const out = PE.insertBeforeModuleCall(p, 'net', code).split('\n');
  assert.ok(out.indexOf('const y = net.call(x);') > out.findIndex((l) => l.includes('net.registerForwardHook')));
  const g = PE.insertBeforeModuleCall(p, null, PE.hookBlock({ id: 'h2', kind: 'global-forward-pre', ref: '', template: 'print' }));
  assert.match(g, /hg\.registerModuleForwardPreHook\(function printHook\(module, args\)[\s\S]*const y = net\.call/);
});

test('hook ids never clash with the program’s own variables', () => {
  assert.equal(PE.nextHookId('const h1 = 1;\nconst h2 = 2;\n'), 'h3');
  assert.equal(PE.nextHookId('// ── hook h4: x ──\n'), 'h5');
});

test('deleting a variable removes whole statements, hook blocks and what depended on it', () => {
  const p = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const d = hg.tensor(4, { requiresGrad: true, name: 'd' });
const e = a.add(d); e.name = 'e';
d.registerHook(function dHook(grad) {
  grad.mul_(100); // in place, and nothing returned
});
const s = 'd is a letter'; // strings do not count
e.backward();
console.log('done', a.grad);
`;
  const out = PE.deleteVariable(p, 'd');
  assert.equal(out, `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const s = 'd is a letter'; // strings do not count
console.log('done', a.grad);
`);
  assert.equal(PE.splitTopLevel(p).length, 7);
  new Function('hg', out.replace(/hg\.tensor\([^;]*\)/g, '({grad: 1})'))({}); // still valid JS
});
