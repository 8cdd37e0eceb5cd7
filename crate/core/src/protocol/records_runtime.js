// The tape's reader (GENERATED into crate/js/records.js, before the record
// decoders: edit this file, crate/core/src/protocol/records_runtime.js, then
// run scripts/gen-protocol.sh). The binding writes a record as a flat tape
// (crate/core/src/protocol/tape.rs: f64 words and a table of distinct
// strings; its header gives the grammar) and __decodeTape rebuilds the plain
// objects of protocol.d.ts in one pass, each with a fixed shape (an object
// literal). The facade (hookgrad.js) hands it to the instance at init.

// The tape being decoded, its strings and the read position (the decoder
// never calls into wasm, so it is never re-entered).
let W = null;
let S = null;
let P = 0;

/** Tape (Float64Array) + strings (Array) → the record. */
export function __decodeTape(words, strings) {
  W = words;
  S = strings;
  P = 0;
  try {
    const v = root();
    if (P !== W.length) {
      throw new Error(P < W.length
        ? `internal: graph/trace record: ${W.length - P} tape words left over`
        : `internal: graph/trace record: the tape ended ${P - W.length} words early`);
    }
    return v;
  } finally {
    W = null;
    S = null;
  }
}

/** The error for a tape word that names no variant. */
const bad = (what) => new Error(`internal: graph/trace record: bad ${what} ${W[P - 1]} at ${P - 1}`);

// Record parts (-1 is null where a slot is otherwise an index or id ≥ 0).
// Integers (ids, shapes, strides, edge and source numbers) leave as small
// integers (V8 Smis): a tape word stored as is made each one a boxed
// HeapNumber (an allocation, and a slower JSON.stringify). `v | 0` is only
// taken when it is exact, so an id past 2^31 stays right.
const int = () => { const v = W[P++]; return (v | 0) === v ? v | 0 : v; };
const optId = () => { const v = W[P++]; return v === -1 ? null : (v | 0) === v ? v | 0 : v; };
const str = () => S[W[P++]];
const optStr = () => { const k = W[P++]; return k === -1 ? null : S[k]; };
const flag = () => W[P++] === 1;

/** A list of integers; literals up to 3 (exact capacity: a pushed-to `[]` reserves 17). */
function nums() {
  switch (W[P++]) {
    case 0: return [];
    case 1: return [int()];
    case 2: return [int(), int()];
    case 3: return [int(), int(), int()];
    default: {
      const n = W[P - 1];
      const a = [];
      for (let k = 0; k < n; k++) a.push(int());
      return a;
    }
  }
}

/** `ndim, dims…, elements…` → nested arrays (a number for 0-d). */
function values() {
  const nd = W[P++];
  if (nd === 0) return W[P++];
  const dims = P;
  P += nd;
  return nest(dims, nd);
}

function nest(dim, nd) {
  const n = W[dim];
  if (nd === 1) return row(n);
  const a = [];
  for (let k = 0; k < n; k++) a.push(nest(dim + 1, nd - 1));
  return a;
}

/** n numbers of a row; literals up to 4 (exact capacity, as in `nums`). */
function row(n) {
  const p = P;
  switch (n) {
    case 0: return [];
    case 1: P += 1; return [W[p]];
    case 2: P += 2; return [W[p], W[p + 1]];
    case 3: P += 3; return [W[p], W[p + 1], W[p + 2]];
    case 4: P += 4; return [W[p], W[p + 1], W[p + 2], W[p + 3]];
    default: {
      const a = [];
      for (let k = 0; k < n; k++) a.push(W[P++]);
      return a;
    }
  }
}

function optValues() {
  if (W[P] === -1) { P++; return null; }
  return values();
}

/** A list of gradients (literals up to 2, as in `nums`). */
function valuesList() {
  switch (W[P++]) {
    case 0: return [];
    case 1: return [optValues()];
    case 2: return [optValues(), optValues()];
    default: {
      const n = W[P - 1];
      const a = [];
      for (let k = 0; k < n; k++) a.push(optValues());
      return a;
    }
  }
}
