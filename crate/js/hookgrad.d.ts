// Types of hookgrad's public JS API (the contract: docs/api.md). Written by
// hand over the wasm-bindgen output (hookgrad_core.d.ts types every value as
// `any`); tests/types/*.ts check examples against them with `tsc --noEmit`,
// and tests/types/runtime.test.mjs checks every name here exists at run time.
// Names follow PyTorch in camelCase; where a comment is silent, PyTorch 2.x is
// the reference.

// ---------------------------------------------------------------- loading

/** What `init()` accepts: a URL or request of the .wasm, its bytes, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;
export interface InitOutput { readonly memory: WebAssembly.Memory }

/**
 * Loads the engine (browser): fetches `hookgrad_bg.wasm` next to this file
 * unless told otherwise. Call once and await it before anything else.
 */
export default function init(moduleOrPath?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>): Promise<InitOutput>;
/** Loads the engine synchronously from bytes or a compiled module (Node: `fs.readFileSync('…/hookgrad_bg.wasm')`). */
export function initSync(module: { module: BufferSource | WebAssembly.Module }): InitOutput;

// ---------------------------------------------------------------- values

/** A number or nested arrays of numbers (what `toArray()` gives and tensors are made of). */
export type NestedNumbers = number | NestedNumbers[];
/** Data for `tensor()`: a number, nested arrays, or a flat typed array with `{shape}`. */
export type TensorData = NestedNumbers | Float32Array | Float64Array | Int32Array | ArrayLike<number>;
/** A gradient given to `backward()` / `hg.grad()`: a Tensor, a number or nested arrays. */
export type GradientLike = Tensor | NestedNumbers;
/** Handles, or arrays / plain objects of them (what `tidy` keeps and `dispose` releases). */
export type TensorContainer = Tensor | Node | Module<any, any> | null | undefined | TensorContainer[] | { [key: string]: TensorContainer };

export interface TensorOptions {
  requiresGrad?: boolean;
  /** Shown in the graph and in `graph()` / `trace()` data. */
  name?: string;
}
export interface TensorDataOptions extends TensorOptions {
  /** Shape of a flat typed array or flat array (row-major); nested data must already have it. */
  shape?: number[];
}
export interface RandnOptions extends TensorOptions {
  /** hookgrad's generator, deterministic per seed (not torch's random stream). Default 0. */
  seed?: number;
}

export interface BackwardOptions {
  /** Keep saved tensors for a second backward (default: `createGraph`). */
  retainGraph?: boolean;
  /** Accumulate only into these leaves. */
  inputs?: Tensor | Tensor[];
  /** Make the computed gradients differentiable (higher-order gradients). */
  createGraph?: boolean;
}
export interface GradOptions {
  /** One gradient per output (default: 1 for scalar outputs). */
  gradOutputs?: GradientLike | (GradientLike | null)[];
  retainGraph?: boolean;
  /** Return `null` for an input the outputs do not depend on instead of throwing. */
  allowUnused?: boolean;
  createGraph?: boolean;
}

// ---------------------------------------------------------------- hooks

/** Returned by every `register*`: `remove()` unregisters the hook (idempotent). */
export class RemovableHandle {
  private constructor();
  readonly id: number;
  remove(): void;
  free(): void;
}

/** What a hook may return instead of a value: nothing, which keeps the value it was given. */
export type Keep = void | undefined | null;
export type Grads = (Tensor | null)[];

/** `t.registerHook(fn)`: sees the gradient w.r.t. `t`; a returned tensor replaces it. */
export type TensorHook = (grad: Tensor) => Tensor | Keep;
/** `t.registerPostAccumulateGradHook(fn)`: runs after `t.grad` was written; must return nothing. */
export type PostAccumulateGradHook = (tensor: Tensor) => void;
/** `node.registerPrehook(fn)`: gradients w.r.t. the node's outputs, before it runs. */
export type NodePreHook = (gradOutputs: Grads) => Grads | Keep;
/** `node.registerHook(fn)`: after the node ran (on `AccumulateGrad`: `([], [grad])`). */
export type NodePostHook = (gradInputs: Grads, gradOutputs: Grads) => Grads | Keep;

// ---------------------------------------------------------------- tensors

export class Tensor {
  private constructor();
  /** Sizes of each dimension (`[]` for a 0-d tensor). */
  readonly shape: number[];
  /** Stable integer: the same tensor always has the same id. */
  readonly id: number;
  readonly isLeaf: boolean;
  /** The backward node that made this tensor, or null (leaves, no-grad results). */
  readonly gradFn: Node | null;
  /** Settable on leaves only (PyTorch's error otherwise). */
  requiresGrad: boolean;
  /** Accumulated gradient; `t.grad = null` clears it. */
  grad: Tensor | null;
  name: string | null;
  /** True on a non-leaf after `retainGrad()`; false on leaves. */
  readonly retainsGrad: boolean;
  /** In-place version counter (PyTorch's `_version`). */
  readonly version: number;

  /** The value of a one-element tensor. */
  item(): number;
  /** Nested arrays (a number for a 0-d tensor). */
  toArray(): NestedNumbers;
  /** PyTorch's repr: `tensor(6., grad_fn=<MulBackward0>)`. */
  toString(): string;
  /** Strides in elements, as PyTorch reports them. */
  stride(): number[];
  isContiguous(): boolean;

  add(other: Tensor | number): Tensor;
  sub(other: Tensor | number): Tensor;
  mul(other: Tensor | number): Tensor;
  div(other: Tensor | number): Tensor;
  neg(): Tensor;
  /** `number - this` (`RsubBackward1`, one edge): Python's `2 - t`. */
  rsub(other: number): Tensor;
  /** `1 / this` (`ReciprocalBackward0`): Python's `2 / t` is `t.reciprocal().mul(2)`. */
  reciprocal(): Tensor;
  /** A number (`PowBackward0`) or a Tensor, broadcasting (`PowBackward1`). */
  pow(exponent: number | Tensor): Tensor;
  exp(): Tensor;
  log(): Tensor;
  sin(): Tensor;
  cos(): Tensor;
  tanh(): Tensor;
  sigmoid(): Tensor;
  relu(): Tensor;
  abs(): Tensor;
  sqrt(): Tensor;
  softmax(dim: number): Tensor;
  logSoftmax(dim: number): Tensor;
  /** 1-D/2-D: dot, mv, mm. */
  matmul(other: Tensor): Tensor;
  sum(dim?: number | null, keepdim?: boolean): Tensor;
  mean(dim?: number | null, keepdim?: boolean): Tensor;
  reshape(shape: number[]): Tensor;
  transpose(dim0: number, dim1: number): Tensor;
  t(): Tensor;
  /** A view with axis `dims[i]` as axis `i` (`PermuteBackward0`); Python's `t.T` is `permute` of the reversed dims. */
  permute(dims: number[]): Tensor;
  /** The last two dims swapped (`TransposeBackward0`); 2-D or more. */
  readonly mT: Tensor;
  /** The slices along `dim` (default 0), each a view, all outputs of one `UnbindBackward0`: Python's `a, b = t`. */
  unbind(dim?: number): Tensor[];
  unsqueeze(dim: number): Tensor;
  squeeze(dim?: number): Tensor;
  /** `-1` keeps a size. */
  expand(shape: number[]): Tensor;
  clone(): Tensor;
  /** No history; shares values and the version counter (`version`) with this tensor. */
  detach(): Tensor;
  /** PyTorch's `t.detach_()`: this tensor leaves the graph in place (an error on a view). */
  detach_(): this;
  /** PyTorch's `.data`: no history, shares values, but a version counter of its own (in-place changes through it escape the saved-tensor check). */
  readonly data: Tensor;
  /** A view without `dim` (`SelectBackward0`); `index` may be negative. */
  select(dim: number, index: number): Tensor;
  /** `t[start:end:step]` along `dim` (default 0): a view (`SliceBackward0`), bounds clamped like a Python slice's; `null` bounds are the ends. */
  slice(dim?: number, start?: number | null, end?: number | null, step?: number): Tensor;
  /** A view of the whole tensor (`AliasBackward0`): what PyTorch's `t[...]`, `t[:, :]` return. */
  alias(): Tensor;
  /** `t[indices]` with integers (nested arrays, or a Tensor of integer values) along dim 0: a copy (`IndexBackward0`). */
  index(indices: number[] | number[][] | Tensor): Tensor;
  /** Always a view (`ViewBackward0`); PyTorch's error where `reshape` would copy. */
  view(shape: number[]): Tensor;
  /** The tensor itself when contiguous, else a row-major copy (`CloneBackward0`). */
  contiguous(): Tensor;
  /** Everything: a 0-d Tensor (`MaxBackward1`, ties share the gradient). */
  max(): Tensor;
  /** Along `dim`: `values` (`MaxBackward0`) and `indices` (a float32 Tensor of integer values, no grad; the first of equal values). */
  max(dim: number, keepdim?: boolean): MinMaxResult;
  min(): Tensor;
  min(dim: number, keepdim?: boolean): MinMaxResult;
  /** `p` (default 2) positive and finite; `dim` one dim or all (`LinalgVectorNormBackward0`). */
  norm(p?: number | null, dim?: number | null, keepdim?: boolean): Tensor;
  /** Number bounds, at least one given (`ClampBackward1`). */
  clamp(min?: number | null, max?: number | null): Tensor;

  /** In place (shares storage; bumps `version`). */
  add_(other: Tensor | number): Tensor;
  sub_(other: Tensor | number): Tensor;
  mul_(other: Tensor | number): Tensor;
  div_(other: Tensor | number): Tensor;
  zero_(): Tensor;
  /** `ReluBackward0`, saving the result (a later in-place change of it fails backward). */
  relu_(): Tensor;
  /** `FillBackward2`; through a view, the base's grad_fn becomes `CopySlices`. */
  fill_(value: number): Tensor;
  /** `src` broadcasts to this shape (`CopyBackwards`). */
  copy_(src: Tensor): Tensor;

  /** `gradient` is required for a non-scalar tensor; `t.backward(undefined, opts)` passes options alone. */
  backward(gradient?: GradientLike | null, opts?: BackwardOptions): void;
  registerHook(hook: TensorHook): RemovableHandle;
  retainGrad(): void;
  registerPostAccumulateGradHook(hook: PostAccumulateGradHook): RemovableHandle;

  /** Releases this handle now (the tensor lives on while anything else needs it). */
  dispose(): void;
  /** A no-op kept for wasm-bindgen habits: the garbage collector frees wrappers. */
  free(): void;
}

/** A backward node (`t.gradFn`), named as in PyTorch: `MulBackward0`, `AccumulateGrad`, … */
export class Node {
  private constructor();
  readonly id: number;
  readonly name: string;
  /** `[node or null, inputNr]` per input, as PyTorch's `next_functions`. */
  readonly nextFunctions: [Node | null, number][];
  /** The leaf, on `AccumulateGrad`; otherwise null. */
  readonly variable: Tensor | null;
  registerPrehook(hook: NodePreHook): RemovableHandle;
  registerHook(hook: NodePostHook): RemovableHandle;
  toString(): string;
  /** Releases this handle now (the node lives on while its graph needs it). */
  dispose(): void;
  free(): void;
}

// ---------------------------------------------------------------- modules

export interface HookOptions {
  /** Run before the hooks already registered. */
  prepend?: boolean;
}
export interface KwargsHookOptions extends HookOptions {
  /** The hook also receives (and may return) the keyword arguments. */
  withKwargs?: boolean;
}
export type Kwargs = Record<string, unknown>;

/**
 * `new hg.Module(name, forward)`: `m.call(...args)` runs hooks and forward
 * like PyTorch's `__call__`. `Args` and `Out` are inferred from `forward`.
 */
export class Module<Args extends unknown[] = any[], Out = any> {
  constructor(name: string, forward: (...args: Args) => Out);
  readonly name: string;
  readonly id: number;
  call(...args: Args): Out;
  /** `call` with the arguments as one array. */
  callArgs(args: Args): Out;
  /** `forward(...args, kwargs)`; hooks see `args` (and `kwargs` with `withKwargs`). */
  callWithKwargs(args: unknown[], kwargs: Kwargs): Out;

  registerForwardPreHook(hook: (module: this, args: Args) => Args | Tensor | Keep, opts?: HookOptions & { withKwargs?: false }): RemovableHandle;
  registerForwardPreHook(hook: (module: this, args: Args, kwargs: Kwargs) => [Args, Kwargs] | Keep, opts: HookOptions & { withKwargs: true }): RemovableHandle;
  registerForwardHook(hook: (module: this, args: Args, output: Out) => Out | Keep, opts?: HookOptions & { withKwargs?: false }): RemovableHandle;
  registerForwardHook(hook: (module: this, args: Args, kwargs: Kwargs, output: Out) => Out | Keep, opts: HookOptions & { withKwargs: true }): RemovableHandle;
  /** Legacy: sees the grad_fn of the module's (first) output, not its inputs — PyTorch's behaviour, reproduced. */
  registerBackwardHook(hook: (module: this, gradInput: Grads, gradOutput: Grads) => Grads | Keep): RemovableHandle;
  /** Gradients w.r.t. the module's tensor inputs and outputs. */
  registerFullBackwardHook(hook: (module: this, gradInput: Grads, gradOutput: Grads) => Grads | Keep, opts?: HookOptions): RemovableHandle;
  registerFullBackwardPreHook(hook: (module: this, gradOutput: Grads) => Grads | Keep, opts?: HookOptions): RemovableHandle;

  /** Keeps the very tensor it is given (same `id`). */
  registerParameter(name: string, tensor: Tensor): void;
  getParameter(name: string): Tensor;
  parameters(): Tensor[];
  /** `['weight', t]`, children's as `'0.weight'`. */
  namedParameters(): [string, Tensor][];
  addModule(name: string, child: Module<any, any>): void;
  /** Itself first, as `''`. */
  namedModules(): [string, Module<any, any>][];
  /** Sets every parameter's `.grad` to null (PyTorch's default). */
  zeroGrad(): void;
  /** Releases this handle now. */
  dispose(): void;
  free(): void;
}

/** A module hook registered globally (`hg.registerModule…`): runs before each module's own. */
export type GlobalForwardPreHook = (module: Module<any, any>, args: unknown[]) => unknown[] | Tensor | Keep;
export type GlobalForwardHook = (module: Module<any, any>, args: unknown[], output: unknown) => unknown;
export type GlobalFullBackwardHook = (module: Module<any, any>, gradInput: Grads, gradOutput: Grads) => Grads | Keep;
export type GlobalFullBackwardPreHook = (module: Module<any, any>, gradOutput: Grads) => Grads | Keep;

export interface LinearOptions {
  /** Default true. */
  bias?: boolean;
  /** Initial values: PyTorch's bounds, hookgrad's generator. */
  seed?: number;
}
export type Layer = Module<[Tensor], Tensor>;

export interface MseLossOptions { reduction?: 'mean' | 'sum' | 'none' }

/** `t.max(dim)` / `t.min(dim)`: PyTorch's `(values, indices)`. */
export interface MinMaxResult { values: Tensor; indices: Tensor }

export declare const nn: {
  /** Parameters `weight` `[out, in]` and `bias` `[out]`; forward as `F.linear` (AddmmBackward0 for 2-D input). */
  readonly Linear: new (inFeatures: number, outFeatures: number, opts?: LinearOptions) => Layer;
  /** Children named `'0'`, `'1'`, …; runs them in order. */
  readonly Sequential: new (...modules: Module<any, any>[]) => Layer;
  /** `{inplace: true}`: `relu_` on its input (`nn.ReLU(inplace=True)`). */
  readonly ReLU: new (opts?: { inplace?: boolean }) => Layer;
  readonly Tanh: new () => Layer;
  readonly Sigmoid: new () => Layer;
  readonly functional: {
    /** `MseLossBackward0`. */
    mseLoss(input: Tensor, target: Tensor, opts?: MseLossOptions): Tensor;
    /** `targets`: class indices, one per row. `NllLossBackward0` over `LogSoftmaxBackward0` for every reduction (default `'mean'`; `'none'`: one loss per row). */
    crossEntropy(logits: Tensor, targets: number[] | number, opts?: MseLossOptions): Tensor;
    /** PyTorch's `F.nll_loss`: the loss of log-probabilities (crossEntropy after logSoftmax). */
    nllLoss(logProbs: Tensor, targets: number[] | number, opts?: MseLossOptions): Tensor;
    /** As PyTorch's `F.linear`: `AddmmBackward0` (2-D with bias), `MmBackward0` (2-D), `UnsafeViewBackward0` over those (1-D with bias, 3-D or more). */
    linear(input: Tensor, weight: Tensor, bias?: Tensor | null): Tensor;
  };
};

// ---------------------------------------------------------------- functions

export function tensor(data: TensorData, opts?: TensorDataOptions): Tensor;
export function zeros(shape: number[], opts?: TensorOptions): Tensor;
export function ones(shape: number[], opts?: TensorOptions): Tensor;
export function randn(shape: number[], opts?: RandnOptions): Tensor;
export function cat(tensors: Tensor[], dim?: number): Tensor;
/** `torch.pow(base, exponent)`: a number base over a Tensor exponent is `PowBackward2`. */
export function pow(base: number | Tensor, exponent: Tensor | number): Tensor;
export function stack(tensors: Tensor[], dim?: number): Tensor;

/** Gradients of `outputs` w.r.t. `inputs`, one per input (`null` when unused with `allowUnused`); `.grad` untouched. */
export function grad(outputs: Tensor | Tensor[], inputs: Tensor | Tensor[], opts?: GradOptions): (Tensor | null)[];
/** `torch.autograd.backward(tensors, gradients)`: every root in one backward pass (each hook runs once); `gradients` one per tensor (`null`: implicit 1 for a scalar), or omitted. */
export function backward(tensors: Tensor | Tensor[], gradients?: GradientLike | (GradientLike | null)[] | null, opts?: BackwardOptions): void;
/** Runs `fn` with graph recording off and returns its result. */
export function noGrad<R>(fn: () => R): R;
export function isGradEnabled(): boolean;

export type Semantics = 'pytorch-2' | 'pytorch-1';
/** `'pytorch-1'` runs retain-grad hooks where `retainGrad()` was called (PyTorch ≤ 1.13). */
export function setSemantics(semantics: Semantics): void;
export function getSemantics(): Semantics;

export function registerModuleForwardPreHook(hook: GlobalForwardPreHook): RemovableHandle;
export function registerModuleForwardHook(hook: GlobalForwardHook): RemovableHandle;
export function registerModuleFullBackwardHook(hook: GlobalFullBackwardHook): RemovableHandle;
export function registerModuleFullBackwardPreHook(hook: GlobalFullBackwardPreHook): RemovableHandle;

/** `torch.autograd.graph.saved_tensors_hooks(pack, unpack)` around `fn()`. */
export function savedTensorsHooks<P, R>(pack: (tensor: Tensor) => P, unpack: (packed: P) => Tensor, fn: () => R): R;

/** `torch.autograd.graph.register_multi_grad_hook`. */
export interface MultiGradHookOptions {
  /** 'all' (default): the hook gets every gradient once all are computed; 'any': the first one. */
  mode?: 'all' | 'any';
}
export function registerMultiGradHook(tensors: Tensor[], hook: (grads: Grads) => void, opts?: MultiGradHookOptions & { mode?: 'all' }): RemovableHandle;
export function registerMultiGradHook(tensors: Tensor[], hook: (grad: Tensor) => void, opts: MultiGradHookOptions & { mode: 'any' }): RemovableHandle;

// ---------------------------------------------------------------- custom functions
/** The `ctx` of a custom Function (PyTorch's `FunctionCtx`); any property of your own may be set on it. */
export interface FunctionCtx {
  /** Per argument of `apply`: a Tensor requiring grad (with grad mode on). */
  readonly needsInputGrad: boolean[];
  saveForBackward(...tensors: Tensor[]): void;
  /** In backward: the saved tensors (version-checked; saved-tensor hooks apply). */
  readonly savedTensors: Tensor[];
  markNonDifferentiable(...outputs: Tensor[]): void;
  /** false: backward gets null for an unused output instead of zeros. */
  setMaterializeGrads(value: boolean): void;
  [key: string]: unknown;
}
export interface CustomFunction<A extends unknown[], R extends Tensor | Tensor[]> {
  readonly name: string;
  apply(...args: A): R;
}
/** PyTorch's `torch.autograd.Function`: `forward` runs with grad mode off; its outputs get one `<name>Backward` node. */
export function customFunction<A extends unknown[], R extends Tensor | Tensor[]>(name: string, fns: {
  forward: (ctx: FunctionCtx, ...args: A) => R;
  backward: (ctx: FunctionCtx, ...gradOutputs: (Tensor | null)[]) => Tensor | null | (Tensor | null)[];
}): CustomFunction<A, R>;
export interface CustomFunctionOptions {
  /** Tensors saved for backward (arguments, outputs or others). */
  saved?: Tensor[];
  /** Outputs that get no gradient (no grad_fn). */
  nonDifferentiable?: Tensor[];
  /** Default true: undefined gradients reach backward as zeros. */
  materializeGrads?: boolean;
}
/** The low-level step of `customFunction(...).apply`: gives `outputs` (computed under noGrad) their `<name>Backward` node. */
export function applyCustomFunction(name: string, args: unknown[], outputs: Tensor[],
  backward: (gradOutputs: (Tensor | null)[], saved: Tensor[]) => Tensor | null | (Tensor | null)[],
  opts?: CustomFunctionOptions): Tensor[];

// ---------------------------------------------------------------- memory

/** Runs `fn` and releases every Tensor/Node handle created inside it except what it returns and what `keep` marked. Nestable. */
export function tidy<R>(fn: () => R): R;
/** Exempts a handle from every enclosing `tidy`; returns it. */
export function keep<T extends Tensor | Node>(handle: T): T;
/** Releases these handles now. */
export function dispose(tensors: TensorContainer): void;
export interface MemoryInfo {
  /** Live tensors. */
  tensors: number;
  /** Live graph nodes. */
  nodes: number;
  /** Live JS handles. */
  handles: number;
  /** Size of the wasm linear memory, in bytes. */
  wasmBytes: number;
}
export function memory(): MemoryInfo;

// ---------------------------------------------------------------- inspection
// graph() / trace() data: the engine's typed protocol (protocol.d.ts, shared
// with the playground), re-exported here.
import type { GraphInfo, TraceEvent, TraceRun } from './protocol.js';
export type * from './protocol.js';

/** `hg.graph(roots)`: every tensor and backward node reachable from `roots`, as plain data. */
export function graph(roots?: Tensor | Tensor[]): GraphInfo;
/** `hg.trace(fn)`: the ordered events `fn()` caused (ending with `error` if it threw). */
export function trace(fn: () => unknown): TraceEvent[];
/** `hg.traceRun(fn)`: `trace(fn)` plus `graph()` of every tensor the run's ops touched. */
export function traceRun(fn: () => unknown): TraceRun;
/** Appends a `log` event to the active trace (none if no trace is active). */
export function recordLog(level: 'log' | 'info' | 'debug' | 'warn' | 'error', text: string): void;
/** Takes every engine warning instead of `console.warn` (no de-duplication) until reset with `null`; `atCaller`: PyTorch places it at the user's line. The Python mode hands them to Python's `warnings`. */
/** Switches graph recording on or off and returns the previous mode (`torch.set_grad_enabled`). Prefer `hg.noGrad(fn)`, which restores it. */
/** `savedTensorsHooks` for a scope entered and left in two calls (Python's `with`): `pack`/`unpack` are active until `popSavedTensorsHooks()`. */
export function pushSavedTensorsHooks(pack: (t: Tensor) => unknown, unpack: (packed: any) => Tensor): void;
/** Ends the innermost `pushSavedTensorsHooks` scope. */
export function popSavedTensorsHooks(): void;
/** While on, tensor handles made outside `hg.tidy` are the caller's to `dispose()` (the garbage collector does not track them); returns the previous setting. For hosts that free every handle themselves (the Python mode). */
export function setTensorHandlesManual(on: boolean): boolean;
export function setGradEnabled(enabled: boolean): boolean;
/** Handles made while a hook runs count as owners of their tensor, as PyTorch counts a hook's references: a hook that keeps a gradient stops AccumulateGrad from taking it over. For hosts that release every handle a hook does not keep when it returns (the Python mode); JS code keeps the default, `false`. Returns the previous setting. */
export function setHookHandlesOwn(on: boolean): boolean;
export function setWarningHandler(handler: ((message: string, atCaller: boolean) => void) | null): void;
