// Every scenario of tests/fixtures/pytorch.json is checked by some test file:
// a scenario counts as covered when a Node test file names it in S('<name>'),
// or a browser test (tests/e2e: the tutorial pages) reads it as FIX.<name>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = JSON.parse(fs.readFileSync(path.join(here, '../fixtures/pytorch.json'), 'utf8'));

test('every fixture scenario is used by a test', () => {
  const read = (dir, skip) => fs.readdirSync(dir)
    .filter((f) => f.endsWith('.mjs') && f !== skip)
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  const sources = read(here, 'coverage.test.mjs');
  const browser = read(path.join(here, '../e2e'));
  const used = new Set([
    ...[...sources.matchAll(/\bS\('([A-Za-z0-9_]+)'\)/g)].map((m) => m[1]),
    ...[...browser.matchAll(/\bFIX\.([A-Za-z0-9_]+)/g)].map((m) => m[1]),
  ]);
  const missing = Object.keys(fixtures.scenarios).filter((n) => !used.has(n));
  assert.deepEqual(missing, [], 'scenarios without a test');
  const unknown = [...used].filter((n) => !(n in fixtures.scenarios));
  assert.deepEqual(unknown, [], 'tests naming scenarios that are not in pytorch.json');
});

test('fixtures were produced by PyTorch 2.x and are small', () => {
  assert.match(fixtures.meta.torch, /^2\./);
  const size = fs.statSync(path.join(here, '../fixtures/pytorch.json')).size;
  assert.ok(size < 300 * 1024, `pytorch.json is ${size} bytes`);
});
