export * from './hookgrad_core.js';
export { default } from './hookgrad_core.js';
import type { Module, Tensor } from './hookgrad_core.js';
import type { GraphInfo, TraceEvent, TraceRun } from './protocol';

// graph() / trace() data: the engine's typed protocol (protocol.d.ts).
export type * from './protocol';
/** `hg.graph(roots)`: every tensor and backward node reachable from `roots`. */
export declare function graph(roots?: Tensor | Tensor[]): GraphInfo;
/** `hg.trace(fn)`: the ordered events `fn()` caused (ending with `error` if it threw). */
export declare function trace(fn: () => unknown): TraceEvent[];
/** `hg.traceRun(fn)`: `trace(fn)` plus `graph()` of every tensor the run's ops touched. */
export declare function traceRun(fn: () => unknown): TraceRun;
/** Appends a `log` event to the active trace (none if no trace is active). */
export declare function recordLog(level: 'log' | 'info' | 'debug' | 'warn' | 'error', text: string): void;

declare module './hookgrad_core.js' {
  interface Module {
    /** Run the module with hooks, like PyTorch's `module(*args)`. */
    call(...args: unknown[]): any;
  }
}

export declare const nn: {
  Linear: new (inFeatures: number, outFeatures: number, opts?: { bias?: boolean; seed?: number }) => Module;
};

/** Runs `fn` and releases every Tensor/Node handle created inside it, except what it returns and what `keep()` marked. */
export declare function tidy<T>(fn: () => T): T;
/** Exempts a handle from every enclosing `tidy`; returns it. */
export declare function keep<T>(t: T): T;
/** Releases the handles in a Tensor, Node, array or plain object now. */
export declare function dispose(x: unknown): void;
/** Live tensors, graph nodes, JS handles, and the wasm memory size in bytes. */
export declare function memory(): { tensors: number; nodes: number; handles: number; wasmBytes: number };

declare module './hookgrad_core.js' {
  interface Tensor {
    /** Releases this handle now; other handles of the same tensor are unaffected. */
    dispose(): void;
  }
  interface Node {
    dispose(): void;
  }
}
