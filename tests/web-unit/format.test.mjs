import test from 'node:test';
import assert from 'node:assert/strict';
import { formatValue, formatList, formatShape } from '../../web/src/model/format.js';

test('PyTorch-style numbers', () => {
  assert.equal(formatValue(8), '8.');
  assert.equal(formatValue(-0.5), '-0.5000');
  assert.equal(formatValue([1, 2.5]), '[1.0000, 2.5000]');
  assert.equal(formatValue([[1, 2], [3, 4]]), '[[1., 2.], [3., 4.]]');
  assert.equal(formatValue(null), 'None');
  assert.equal(formatValue(1e-6), '1.0000e-06');
  assert.equal(formatValue(NaN), 'nan');
});
test('tuples and truncation', () => {
  assert.equal(formatList([4, 6]), '(4., 6.)');
  assert.equal(formatList([null]), '(None,)');
  assert.equal(formatValue([1, 2, 3, 4, 5, 6, 7], 10), '[1., 2., …');
  assert.equal(formatShape([]), '[]'); assert.equal(formatShape([2, 3]), '[2, 3]');
});
