// The data of hg.graph() and hg.trace(): the TypeScript side of the one
// typed seam between engine and UI. The Rust side is
// crate/core/src/protocol.rs (serde derives); crate/js/protocol-schema.mjs is
// the same schema as runtime data, and tests/node/protocol.test.mjs checks
// that real engine output, this file and that schema all agree.
// Copied to web/pkg/protocol.d.ts by scripts/build-wasm.sh.

/** A nested number array as PyTorch's `tolist()` (a bare number for 0-d). */
export type Values = number | Values[];

/** Every hook kind a trace event or graph row names. */
export type HookKind =
  | 'tensor' | 'retain-grad' | 'node-pre' | 'node-post' | 'post-accumulate'
  | 'module-pre' | 'module-forward' | 'module-backward'
  | 'module-full-backward' | 'module-full-backward-pre'
  | 'pack' | 'unpack' | 'multi-grad';

export type ModulePhase = 'pre-hook' | 'forward' | 'hook' | 'end';

export type LogLevel = 'log' | 'warn' | 'error';

/** Where the user's code registered a hook (1-based), when known. */
export interface SourceLoc {
  line: number;
  column: number;
}

// ----- graph() ---------------------------------------------------------------

/** A hook row of a tensor or node. `handle` is the id of the handle that
 * `register*()` returned, so it equals the `handle` of the trace's events. */
export interface HookInfo {
  handle: number;
  kind: HookKind;
  name: string;
  /** Module hooks only: the module's name and id. */
  module?: string;
  moduleId?: number;
  source: SourceLoc | null;
}

export interface TensorInfo {
  id: number;
  name: string | null;
  shape: number[];
  /** PyTorch's strides (`t.stride()`). */
  stride: number[];
  data: Values;
  requiresGrad: boolean;
  isLeaf: boolean;
  retainsGrad: boolean;
  gradFn: number | null;
  grad: Values | null;
  hooks: HookInfo[];
}

export interface NextEdge {
  node: number | null;
  inputNr: number;
}

export interface NodeInfo {
  id: number;
  name: string;
  next: NextEdge[];
  variable: number | null;
  preHooks: HookInfo[];
  postHooks: HookInfo[];
}

export interface GraphInfo {
  tensors: TensorInfo[];
  nodes: NodeInfo[];
}

// ----- trace() -----------------------------------------------------------------

export interface OpEvent {
  type: 'op';
  node: number;
  name: string;
  inputs: number[];
  output: number;
}

export interface ModuleEvent {
  type: 'module';
  module: string;
  moduleId: number;
  phase: ModulePhase;
}

export interface NodeEvent {
  type: 'node';
  node: number;
  name: string;
  gradOutputs: (Values | null)[];
  gradInputs: (Values | null)[];
}

/** A hook's value: one gradient (tensor hooks) or a list (node and module hooks). */
export type HookValue = Values | null | (Values | null)[];

/** A hook ran; recorded after it returned. Exactly one target: `tensor`,
 * `node`, or `module` + `moduleId` (+ `node`, the backward node a module
 * backward hook ran on). */
export interface HookEvent {
  type: 'hook';
  kind: HookKind;
  handle: number;
  /** The hook function's name, as graph()'s HookInfo gives it ('' for an
   * anonymous function; 'retain_grad'; pack / unpack: that function's).
   * Names a hook that was removed, or whose tensor hg.tidy released. */
  name: string;
  /** The saved tensor (pack / unpack, with `node`: the node that saved it). */
  tensor?: number;
  /** With a hook on a tensor (`tensor`, `retain-grad`, `post-accumulate`):
   * the tensor's name when the hook ran, or null. Names a tensor that
   * `hg.tidy` released before `graph()` was taken. */
  tensorName?: string | null;
  node?: number;
  /** A multi-grad hook's tensors. */
  tensors?: number[];
  module?: string;
  moduleId?: number;
  before: HookValue;
  after: HookValue;
}

export interface AccumulateEvent {
  type: 'accumulate';
  tensor: number;
  grad: Values;
}

/** The program assigned `.grad` (`t.grad = …`, `m.zeroGrad()`): `grad` is
 * the value now in it, null for None (PyTorch's `None`). Backward's own
 * writes are `accumulate` events. */
export interface GradSetEvent {
  type: 'grad-set';
  tensor: number;
  grad: Values | null;
}

export interface WarningEvent {
  type: 'warning';
  message: string;
}

export interface ErrorEvent {
  type: 'error';
  message: string;
  node?: number;
}

/** A console line of the program (`hg.recordLog`). `hook`: the handle of the
 * user hook that printed it (the line follows that hook's event), else null. */
export interface LogEvent {
  type: 'log';
  level: LogLevel;
  text: string;
  hook: number | null;
}

export type TraceEvent =
  | OpEvent | ModuleEvent | NodeEvent | HookEvent | AccumulateEvent
  | GradSetEvent | WarningEvent | ErrorEvent | LogEvent;

/** What `hg.traceRun(fn)` returns. */
export interface TraceRun {
  trace: TraceEvent[];
  graph: GraphInfo;
}
