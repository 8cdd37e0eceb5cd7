// What the two hostile-hook suites share (hostile-hooks.test.mjs,
// hostile-hook-values.test.mjs): a test() that runs the canary after each
// misuse, and two small shorthands.
import { test } from 'node:test';
import { canary } from './harness.mjs';

export const item = (t) => (t === null || t === undefined ? null : t.item());
export const retain = { retainGraph: true };

/** test() that runs the canary afterwards. */
export function hostile(name, fn, opts = {}) {
  test(`hostile: ${name}`, opts, () => {
    fn();
    canary();
  });
}
