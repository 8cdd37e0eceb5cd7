import test from 'node:test';
import assert from 'node:assert/strict';
import { formatArg } from '../../web/src/model/console-format.js';

class FakeTensor { constructor(s) { this.s = s; } toString() { return this.s; } }
const is = { isTensor: (x) => x instanceof FakeTensor, isNode: (x) => !!x && x.kind === 'node' };

test('tensors print with their repr, lists of tensors as tuples', () => {
  assert.equal(formatArg(new FakeTensor('tensor(8.)'), is), 'tensor(8.)');
  assert.equal(formatArg([new FakeTensor('tensor(4.)'), new FakeTensor('tensor(6.)')], is), '(tensor(4.), tensor(6.))');
  assert.equal(formatArg([null], is), '(None,)');
  assert.equal(formatArg([1, 'a'], is), '[1, "a"]');
});
test('other values', () => {
  assert.equal(formatArg('<b>', is), '<b>');
  assert.equal(formatArg(undefined, is), 'undefined');
  assert.equal(formatArg({ kind: 'node', name: 'MulBackward0' }, is), '<MulBackward0 object>');
  assert.equal(formatArg({ x: 1 }, is), '{x: 1}');
  assert.equal(formatArg(function f() {}, is), '[Function f]');
  assert.equal(formatArg(new Error('boom'), is), 'Error: boom');
  const evil = { get x() { throw new Error('nope'); } };
  assert.match(formatArg(evil, is), /unprintable/);
});
