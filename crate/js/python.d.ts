// `hookgrad/python`: PyTorch programs on Pyodide over hookgrad's engine.
import type { GraphInfo, TraceEvent } from './protocol';

export interface PythonException {
  /** Python's exception class name: 'RuntimeError', 'ValueError', 'SyntaxError', ... */
  type: string;
  message: string;
  /** The line of the user's program where it was raised (its last frame there), if any. */
  line: number | null;
}

export interface PythonRun {
  stdout: string;
  stderr: string;
  exception: PythonException | null;
  graph: GraphInfo;
  trace: TraceEvent[];
}

export interface PythonRunOptions {
  semantics?: 'pytorch-2' | 'pytorch-1';
  /** The program's file name in tracebacks and warnings (default 'main.py'). */
  filename?: string;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  /** Record the trace and graph (default true); false runs untraced (graph and trace empty). */
  trace?: boolean;
}

export interface LoadPythonOptions {
  /** An initialised hookgrad module (default: this package's, initialised on load). */
  hg?: unknown;
  /** An already loaded Pyodide instance: only the shim is installed into it. */
  pyodide?: unknown;
  /** Where Pyodide's files are (default: the `pyodide` package in Node, `./pyodide/` beside this file on a site). */
  indexURL?: string;
  onProgress?: (p: { stage: 'pyodide' | 'shim' | 'ready' }) => void;
}

export interface Python {
  run(source: string, options?: PythonRunOptions): PythonRun;
  pyodide: unknown;
  hg: unknown;
}

export function loadPython(options?: LoadPythonOptions): Promise<Python>;
