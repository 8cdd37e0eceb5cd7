import test from 'node:test';
import assert from 'node:assert/strict';
import { userFrames } from '../../web/src/model/python-traceback.js';

test("a traceback keeps the program's frames and drops Pyodide's blob: frames", () => {
  const tb = `Traceback (most recent call last):
  File "main.py", line 3, in <module>
    js.fetch('https://evil.example/')
    ~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^
  File "blob:null/abc", line 1, in JsvFunction_CallBound
  File "blob:null/def", line 1, in t
    some js
pyodide.ffi.JsException: Error: fetch() is not available: hookgrad runs programs in a sandbox with no network and no storage.`;
  assert.equal(userFrames(tb), `Traceback (most recent call last):
  File "main.py", line 3, in <module>
    js.fetch('https://evil.example/')
    ~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^
pyodide.ffi.JsException: Error: fetch() is not available: hookgrad runs programs in a sandbox with no network and no storage.`);
});
