export * from './hookgrad_core.js';
export { default } from './hookgrad_core.js';
import type { Module } from './hookgrad_core.js';

declare module './hookgrad_core.js' {
  interface Module {
    /** Run the module with hooks, like PyTorch's `module(*args)`. */
    call(...args: unknown[]): any;
  }
}

export declare const nn: {
  Linear: new (inFeatures: number, outFeatures: number, opts?: { bias?: boolean; seed?: number }) => Module;
};
