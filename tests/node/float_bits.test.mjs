// exp, tanh and sigmoid through the built wasm against PyTorch's float32
// results (tests/fixtures/float_bits.json, real torch 2.15; see
// crate/core/src/float_bits_tests.rs for the same check on the core). The
// wasm's math library is not the host's, so this is the check that counts:
// what `print(t.tanh().item())` shows in the Python mode comes from here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hg, root } from './helpers.mjs';

const FIX = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/float_bits.json'), 'utf8'));
const asFloat = (bits) => new Float32Array(new Uint32Array([bits]).buffer)[0];
const inputs = FIX.inputs.map(asFloat);

/** [results that differ, the largest difference in units in the last place] */
function compare(op) {
  let differ = 0;
  let worst = 0;
  for (const [size, want] of Object.entries(FIX.ops[op])) {
    const n = Number(size);
    for (let at = 0; at < inputs.length; at += n) {
      const chunk = inputs.slice(at, at + n);
      const got = hg.tidy(() => {
        const x = n === 1 ? hg.tensor(chunk[0]) : hg.tensor(chunk);
        const y = x[op]().toArray();
        return n === 1 ? [y] : y;
      });
      const gotBits = new Uint32Array(new Float32Array(got).buffer);
      for (let i = 0; i < n; i++) {
        if (gotBits[i] !== want[at + i]) {
          differ += 1;
          worst = Math.max(worst, Math.abs(gotBits[i] - want[at + i]));
        }
      }
    }
  }
  return [differ, worst];
}

// Bounds as in the core's test: PyTorch's exp and tanh are not always
// correctly rounded (66 and 6 of 4,800 in the fixture), sigmoid differs on
// one input near a rounding midpoint; f32::exp / f32::tanh differ in ~1 in 10.
for (const [op, most] of [['exp', 80], ['tanh', 8], ['sigmoid', 4]]) {
  test(`${op}: PyTorch's float32 results, 1 ulp at most and in at most ${most} of 4,800`, () => {
    const [differ, worst] = compare(op);
    assert.ok(differ <= most && worst <= 1, `${differ} differ, worst ${worst} ulp`);
  });
}
