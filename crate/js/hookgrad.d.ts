export * from './hookgrad_core.js';
export { default } from './hookgrad_core.js';
import type { Module, Tensor } from './hookgrad_core.js';

declare module './hookgrad_core.js' {
  interface Module {
    /** Run the module with hooks, like PyTorch's `module(*args)`. */
    call(...args: unknown[]): any;
  }
}

export declare const nn: {
  Linear: new (inFeatures: number, outFeatures: number, opts?: { bias?: boolean; seed?: number }) => Module;
  Sequential: new (...modules: Module[]) => Module;
  ReLU: new () => Module;
  Tanh: new () => Module;
  Sigmoid: new () => Module;
  functional: {
    mseLoss(input: Tensor, target: Tensor, opts?: { reduction?: 'mean' | 'sum' | 'none' }): Tensor;
    crossEntropy(logits: Tensor, targets: number[] | number | Tensor): Tensor;
  };
};
