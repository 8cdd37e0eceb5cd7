// A synchronous loop without hg.tidy never lets the garbage collector's
// callbacks run: its handles pile up (crate/js/hookgrad_handles.js). Past a
// threshold the facade says so once, naming hg.tidy, as TF.js users expect;
// a loop whose steps are in tidy never hears it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { hg } from './helpers.mjs';

test('handles piling up outside hg.tidy: one console warning that names hg.tidy', () => {
  const warnings = [];
  const warn = console.warn;
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    const w = hg.tensor(0.5, { requiresGrad: true });
    // 150,000 handles, each step in tidy: nothing piles up.
    for (let step = 0; step < 50; step++) {
      hg.tidy(() => {
        let y = w;
        for (let i = 0; i < 3000; i++) y = y.mul(1.0001);
        return null;
      });
    }
    assert.deepEqual(warnings, [], 'no warning while every step is in tidy');
    // The same without tidy: past the threshold, one warning, and only one.
    let y = w;
    for (let i = 0; i < 250_000; i++) y = y.mul(1);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /hg\.tidy/);
    assert.match(warnings[0], /garbage collector/);
    assert.equal(y.item(), 0.5);
  } finally {
    console.warn = warn;
  }
});
