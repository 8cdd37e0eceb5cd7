// The JS Tensor class: an id into the engine's handle table
// (crate/wasm/src/table.rs) and one method per operation, each a call of
// the flat export that takes the id (crate/wasm/src/tensor*.rs). An export
// that makes a tensor answers the new handle's id, wrapped here.
import * as core from './hookgrad_core.js';
import { own, unusable, disposeHandle } from './hookgrad_handles.js';

/** The key of the constructor: user code gets tensors from hg.tensor() and ops, never `new`. */
export const MAKE = Symbol('hookgrad handle');

/** A new Tensor object for table entry `id`, owned by the current scope (or the collector). */
export function tensorFrom(id) {
  const t = new Tensor(MAKE, id);
  own(t, id, true);
  return t;
}

/** `id === 0` (none) as null, else a new Tensor. */
const tensorOrNull = (id) => (id === 0 ? null : tensorFrom(id));

/** The id of a live Tensor `t`, else its error. */
function tid(t) {
  const id = t.__hg;
  if (id > 0) return id;
  return unusable(t, 'tensor');
}

// The typed exports (crate/wasm/src/fast_ops.rs), where a 0-d op can stay a
// deferred row: `kind` numbers the op. They answer the new handle's id, or
// 0 with the error kept for take_error().
const ADD = 0;
const SUB = 1;
const MUL = 2;
const DIV = 3;
const TANH = 4;
const NEG = 5;
const EXP = 6;
const LOG = 7;
const SIGMOID = 8;
const RELU = 9;
const POW = 10;
const SIN = 11;
const COS = 12;
const ABS = 13;
const SQRT = 14;
function made(id) {
  if (id === 0) throw core.take_error();
  return tensorFrom(id);
}
/** `a op other`: a number or a Tensor take the typed exports; anything else the generic one and its errors. */
function arith(a, kind, other, generic) {
  const ia = tid(a);
  if (typeof other === 'number') return made(core.tensor_op_number(kind, ia, other));
  if (other instanceof Tensor && other.__hg > 0) return made(core.tensor_op_tensor(kind, ia, other.__hg));
  return tensorFrom(generic(ia, other));
}
/** A unary op on `a` through the typed export. */
const unary = (a, kind) => made(core.tensor_op_number(kind, tid(a), 0));

export class Tensor {
  /** Not for user code (`private constructor` in hookgrad.d.ts). */
  constructor(key, id) {
    if (key !== MAKE) throw new TypeError('Tensor has no public constructor: use hg.tensor(), hg.zeros(), … or an op');
    this.__hg = id;
  }

  // How the engine recognises a Tensor argument (crate/wasm/src/convert.rs): its id, 0 once released.
  get __hgTensor() { return this.__hg; }

  // ----- properties
  get shape() { return core.tensor_shape(tid(this)); }
  get id() { return core.tensor_id(tid(this)); }
  get isLeaf() { return core.tensor_is_leaf(tid(this)); }
  get gradFn() { return nodeOrNull(core.tensor_grad_fn(tid(this))); }
  get requiresGrad() { return core.tensor_requires_grad(tid(this)); }
  set requiresGrad(v) { core.tensor_set_requires_grad(tid(this), v); }
  get grad() { return tensorOrNull(core.tensor_grad(tid(this))); }
  set grad(v) { core.tensor_set_grad(tid(this), v); }
  get name() { return core.tensor_name(tid(this)); }
  set name(v) { core.tensor_set_name(tid(this), v); }
  get retainsGrad() { return core.tensor_retains_grad(tid(this)); }
  get version() { return core.tensor_version(tid(this)); }
  get mT() { return tensorFrom(core.tensor_m_t(tid(this))); }
  get data() { return tensorFrom(core.tensor_data(tid(this))); }

  item() { return core.tensor_item(tid(this)); }
  toArray() { return core.tensor_to_array(tid(this)); }
  toString() { return core.tensor_to_string(tid(this)); }
  stride() { return core.tensor_stride(tid(this)); }
  isContiguous() { return core.tensor_is_contiguous(tid(this)); }

  // ----- arithmetic
  add(other) { return arith(this, ADD, other, core.tensor_add); }
  sub(other) { return arith(this, SUB, other, core.tensor_sub); }
  mul(other) { return arith(this, MUL, other, core.tensor_mul); }
  div(other) { return arith(this, DIV, other, core.tensor_div); }
  tanh() { return unary(this, TANH); }
  neg() { return unary(this, NEG); }
  rsub(other) { return tensorFrom(core.tensor_rsub(tid(this), other)); }
  reciprocal() { return tensorFrom(core.tensor_reciprocal(tid(this))); }
  /** `pow(exponent)`: a number or a Tensor through the typed exports (a 0-d Tensor exponent stays a deferred row, as a number does); anything else the generic one and its error. */
  pow(exponent) { return arith(this, POW, exponent, core.tensor_pow); }
  exp() { return unary(this, EXP); }
  log() { return unary(this, LOG); }
  sin() { return unary(this, SIN); }
  cos() { return unary(this, COS); }
  sigmoid() { return unary(this, SIGMOID); }
  relu() { return unary(this, RELU); }
  abs() { return unary(this, ABS); }
  sqrt() { return unary(this, SQRT); }
  softmax(dim) { return tensorFrom(core.tensor_softmax(tid(this), dim)); }
  logSoftmax(dim) { return tensorFrom(core.tensor_log_softmax(tid(this), dim)); }
  clamp(min, max) { return tensorFrom(core.tensor_clamp(tid(this), min, max)); }

  // ----- reductions and linear algebra
  matmul(other) { return tensorFrom(core.tensor_matmul(tid(this), other)); }
  sum(dim, keepdim) { return tensorFrom(core.tensor_sum(tid(this), dim, keepdim)); }
  mean(dim, keepdim) { return tensorFrom(core.tensor_mean(tid(this), dim, keepdim)); }
  /** A Tensor, or `{values, indices}` with a `dim`. */
  max(dim, keepdim) { return core.tensor_max(tid(this), dim, keepdim); }
  min(dim, keepdim) { return core.tensor_min(tid(this), dim, keepdim); }
  norm(p, dim, keepdim) { return tensorFrom(core.tensor_norm(tid(this), p, dim, keepdim)); }

  // ----- shapes and views
  reshape(shape) { return tensorFrom(core.tensor_reshape(tid(this), shape)); }
  view(shape) { return tensorFrom(core.tensor_view(tid(this), shape)); }
  transpose(dim0, dim1) { return tensorFrom(core.tensor_transpose(tid(this), dim0, dim1)); }
  t() { return tensorFrom(core.tensor_t(tid(this))); }
  permute(dims) { return tensorFrom(core.tensor_permute(tid(this), dims)); }
  unbind(dim) { return core.tensor_unbind(tid(this), dim); }
  unsqueeze(dim) { return tensorFrom(core.tensor_unsqueeze(tid(this), dim)); }
  squeeze(dim) { return tensorFrom(core.tensor_squeeze(tid(this), dim)); }
  expand(shape) { return tensorFrom(core.tensor_expand(tid(this), shape)); }
  select(dim, index) { return tensorFrom(core.tensor_select(tid(this), dim, index)); }
  slice(dim, start, end, step) { return tensorFrom(core.tensor_slice(tid(this), dim, start, end, step)); }
  alias() { return tensorFrom(core.tensor_alias(tid(this))); }
  index(indices) { return tensorFrom(core.tensor_index(tid(this), indices)); }
  contiguous() { return tensorFrom(core.tensor_contiguous(tid(this))); }
  clone() { return tensorFrom(core.tensor_clone(tid(this))); }
  detach() { return tensorFrom(core.tensor_detach(tid(this))); }
  detach_() { core.tensor_detach_(tid(this)); return this; }

  // ----- in place (each answers a new handle of the same tensor)
  add_(other) { return tensorFrom(core.tensor_add_(tid(this), other)); }
  sub_(other) { return tensorFrom(core.tensor_sub_(tid(this), other)); }
  mul_(other) { return tensorFrom(core.tensor_mul_(tid(this), other)); }
  div_(other) { return tensorFrom(core.tensor_div_(tid(this), other)); }
  zero_() { return tensorFrom(core.tensor_zero_(tid(this))); }
  relu_() { return tensorFrom(core.tensor_relu_(tid(this))); }
  fill_(value) { return tensorFrom(core.tensor_fill_(tid(this), value)); }
  copy_(src) { return tensorFrom(core.tensor_copy_(tid(this), src)); }

  // ----- autograd
  backward(gradient, opts) { core.tensor_backward(tid(this), gradient, opts); }
  registerHook(hook) {
    const n = core.tensor_register_hook(tid(this), hook, typeof hook === 'function');
    if (n === 0) throw core.take_error();
    return handleFrom(n);
  }
  retainGrad() { core.tensor_retain_grad(tid(this)); }
  registerPostAccumulateGradHook(hook) { return core.tensor_register_post_accumulate_grad_hook(tid(this), hook); }

  /** Releases this handle now; other handles of the tensor are unaffected. */
  dispose() { disposeHandle(this); }
  /** A harmless no-op (the contract: a handle is released with dispose()). */
  free() {}
}

// Node and RemovableHandle come from classes.js, which imports this file:
// bound here once both are loaded (hookgrad.js calls `link`).
let nodeOrNull = null;
let handleFrom = null;
export function link(nodes, handles) {
  nodeOrNull = nodes;
  handleFrom = handles;
}
