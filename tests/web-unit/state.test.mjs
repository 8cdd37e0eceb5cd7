import test from 'node:test';
import assert from 'node:assert/strict';
import { encodeState, decodeHash, MAX_HASH } from '../../web/src/model/state.js';

const st = { v: 1, lesson: 'legacy-hook', program: 'const a = hg.tensor(2); // ünïcode ✓ </script>', semantics: 'pytorch-1', step: 7, lang: 'js' };

test('state round-trips through the hash', () => {
  const hash = encodeState(st);
  assert.match(hash, /^#s=[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeHash(hash), { ok: true, state: st });
});

test('lesson links', () => {
  assert.deepEqual(decodeHash('#lesson=5'), { ok: true, lesson: '5', lang: 'js' });
  assert.deepEqual(decodeHash('#lesson=5&lang=python'), { ok: true, lesson: '5', lang: 'python' });
  assert.deepEqual(decodeHash('#lang=python'), { ok: true, empty: true, lang: 'python' });
  assert.equal(decodeHash('#lesson=<img>').ok, false);
  assert.deepEqual(decodeHash(''), { ok: true, empty: true });
});

test('malformed links are refused with a message, never thrown', () => {
  for (const h of ['#s=%%%', '#s=!!!', '#s=bm90IGpzb24', '#foo=1', `#s=${btoa('{"v":2,"program":""}')}`,
    `#s=${btoa('{"v":1,"program":5}')}`, `#s=${btoa('{"v":1,"program":"x","semantics":"tf"}')}`, `#s=${btoa('[1]')}`]) {
    const d = decodeHash(h);
    assert.equal(d.ok, false, h);
    assert.equal(typeof d.error, 'string');
  }
});

test('oversized links are refused', () => {
  const d = decodeHash(`#s=${'A'.repeat(MAX_HASH + 1)}`);
  assert.equal(d.ok, false);
  assert.match(d.error, /too long/);
});

test('bad step and missing semantics get defaults', () => {
  const h = `#s=${Buffer.from(JSON.stringify({ v: 1, program: 'x', step: -4 })).toString('base64url')}`;
  assert.deepEqual(decodeHash(h).state, { v: 1, lesson: null, program: 'x', semantics: 'pytorch-2', step: null, lang: 'js' });
});

test('the language travels in the link; JavaScript links are unchanged by it', () => {
  const py = { ...st, program: 'import torch\nprint(torch.tensor(2.))', lang: 'python' };
  assert.deepEqual(decodeHash(encodeState(py)).state, py);
  assert.doesNotMatch(Buffer.from(encodeState(st).slice(3), 'base64url').toString(), /lang/);
  assert.equal(decodeHash(`${encodeState(st)}&lang=python`).state.lang, 'python');
  assert.equal(decodeHash(`#s=${Buffer.from(JSON.stringify({ v: 1, program: 'x', lang: 'ruby' })).toString('base64url')}`).ok, false);
});
