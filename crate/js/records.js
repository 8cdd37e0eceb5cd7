// hg.graph() and hg.trace() records: the binding writes one as a flat tape
// (crate/wasm/src/tape.rs: f64 words and a table of distinct strings; its
// header gives the grammar) and __decodeTape rebuilds the plain objects of
// protocol.d.ts in one pass, each with a fixed shape (an object literal).
// The facade (hookgrad.js) hands it to the instance at init.

const TAPE = { NULL: 0, TRUE: 1, FALSE: 2, NUM: 3, STR: 4, ARR: 5, OBJ: 6, GRAPH: 7, EVENTS: 8 };

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
    const v = value();
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

function value() {
  switch (W[P++]) {
    case TAPE.GRAPH: return graphRecord();
    case TAPE.EVENTS: return eventsRecord();
    case TAPE.NUM: return W[P++];
    case TAPE.STR: return S[W[P++]];
    case TAPE.NULL: return null;
    case TAPE.TRUE: return true;
    case TAPE.FALSE: return false;
    case TAPE.ARR: {
      const n = W[P++];
      const a = [];
      for (let k = 0; k < n; k++) a.push(value());
      return a;
    }
    case TAPE.OBJ: {
      const n = W[P++];
      const o = {};
      for (let k = 0; k < n; k++) {
        const key = value();
        o[key] = value();
      }
      return o;
    }
    default: throw new Error(`internal: graph/trace record: bad tape word ${W[P - 1]} at ${P - 1}`);
  }
}

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

function graphRecord() {
  const nt = W[P++];
  const tensors = [];
  for (let k = 0; k < nt; k++) {
    const id = int();
    const name = optStr();
    const shape = nums();
    const stride = nums();
    const data = values();
    const requiresGrad = flag();
    const isLeaf = flag();
    const retainsGrad = flag();
    const gradFn = optId();
    const grad = optValues();
    const hooks = hookRows();
    tensors.push({ id, name, shape, stride, data, requiresGrad, isLeaf, retainsGrad, gradFn, grad, hooks });
  }
  const nn = W[P++];
  const nodes = [];
  for (let k = 0; k < nn; k++) {
    const id = int();
    const name = str();
    const next = edges();
    const variable = optId();
    const preHooks = hookRows();
    const postHooks = hookRows();
    nodes.push({ id, name, next, variable, preHooks, postHooks });
  }
  return { tensors, nodes };
}

/** A node's `next` (literals up to 2, as in `nums`). */
function edges() {
  switch (W[P++]) {
    case 0: return [];
    case 1: return [edge()];
    case 2: return [edge(), edge()];
    default: {
      const n = W[P - 1];
      const a = [];
      for (let k = 0; k < n; k++) a.push(edge());
      return a;
    }
  }
}

function edge() {
  const node = optId();
  const inputNr = int();
  return { node, inputNr };
}

function hookRows() {
  const n = W[P++];
  const rows = [];
  for (let k = 0; k < n; k++) {
    const handle = int();
    const kind = str();
    const name = str();
    const m = W[P++];
    if (m === -1) {
      const source = sourceLoc();
      rows.push({ handle, kind, name, source });
    } else if (m >= 0) {
      const module = S[m];
      const moduleId = int();
      const source = sourceLoc();
      rows.push({ handle, kind, name, module, moduleId, source });
    } else {
      // Only one of module / moduleId (the core never writes this).
      const row = { handle, kind, name };
      const module = optStr();
      const moduleId = optId();
      if (module !== null) row.module = module;
      if (moduleId !== null) row.moduleId = moduleId;
      row.source = sourceLoc();
      rows.push(row);
    }
  }
  return rows;
}

function sourceLoc() {
  if (W[P] === -1) { P++; return null; }
  const line = int();
  const column = int();
  return { line, column };
}

function eventsRecord() {
  const n = W[P++];
  const events = [];
  for (let k = 0; k < n; k++) events.push(event());
  return events;
}

function event() {
  switch (W[P++]) {
    case 0: {
      const node = int();
      const name = str();
      const inputs = nums();
      const output = int();
      return { type: 'op', node, name, inputs, output };
    }
    case 1: {
      const module = str();
      const moduleId = int();
      const phase = str();
      return { type: 'module', module, moduleId, phase };
    }
    case 2: {
      const node = int();
      const name = str();
      const gradOutputs = valuesList();
      const gradInputs = valuesList();
      return { type: 'node', node, name, gradOutputs, gradInputs };
    }
    case 3: return hookEvent();
    case 4: {
      const tensor = int();
      const grad = values();
      return { type: 'accumulate', tensor, grad };
    }
    case 5: return { type: 'warning', message: str() };
    case 6: {
      const message = str();
      const node = optId();
      return node === null ? { type: 'error', message } : { type: 'error', message, node };
    }
    case 7: {
      const level = str();
      const text = str();
      const hook = optId();
      return { type: 'log', level, text, hook };
    }
    case 8: {
      const tensor = int();
      const grad = optValues();
      return { type: 'grad-set', tensor, grad };
    }
    default: throw new Error(`internal: graph/trace record: bad event tag ${W[P - 1]} at ${P - 1}`);
  }
}

/** A hook's value: `0` one gradient (or null), `1` a list. */
const hookValue = () => (W[P++] === 0 ? optValues() : valuesList());

function hookEvent() {
  const type = 'hook';
  const kind = str();
  const handle = int();
  const name = str();
  switch (W[P++]) {
    case 0: {
      const tensor = int();
      const tensorName = optStr();
      const before = hookValue();
      const after = hookValue();
      return { type, kind, handle, name, tensor, tensorName, before, after };
    }
    case 1: {
      const node = int();
      const before = hookValue();
      const after = hookValue();
      return { type, kind, handle, name, node, before, after };
    }
    case 2: {
      const module = str();
      const moduleId = int();
      const node = optId();
      const before = hookValue();
      const after = hookValue();
      return node === null
        ? { type, kind, handle, name, module, moduleId, before, after }
        : { type, kind, handle, name, module, moduleId, node, before, after };
    }
    case 3: {
      const tensor = int();
      const node = int();
      const before = hookValue();
      const after = hookValue();
      return { type, kind, handle, name, tensor, node, before, after };
    }
    case 4: {
      const tensors = nums();
      const before = hookValue();
      const after = hookValue();
      return { type, kind, handle, name, tensors, before, after };
    }
    default: throw new Error(`internal: graph/trace record: bad hook target ${W[P - 1]} at ${P - 1}`);
  }
}
