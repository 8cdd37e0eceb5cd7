// Appended to a reader's Python program (by the Python worker, and by the
// lesson-twin test): after the program, every module-level variable holding
// a tensor
// - names it, if unnamed: the figure labels tensors by name, and a JS lesson
//   names its tensors — so the figure reads the same in either language;
// - stays alive until the next run: a Python tensor frees its engine handle
//   when CPython frees it, and the runner clears the program's globals before
//   the graph is read, which would drop the very tensors the figure shows.
// Appended only to a program that compiles (withEpilogue), so that a syntax
// error is still reported at the reader's own line.
export const EPILOGUE = `
def __hookgrad_epilogue():
    import sys, torch
    keep = []
    for k, v in list(globals().items()):
        if isinstance(v, torch.Tensor) and not k.startswith('_'):
            keep.append(v)
            try:
                if not v._h.name:
                    v._h.name = k
            except Exception:
                pass
    sys.modules['torch']._hookgrad_keep = keep
__hookgrad_epilogue()
`;

/** The program with the epilogue, or as it is if it does not compile. */
export function withEpilogue(pyodide, program) {
  try {
    pyodide.globals.set('__hookgrad_src', program);
    pyodide.runPython("compile(__hookgrad_src, 'main.py', 'exec')");
    return `${program}\n${EPILOGUE}`;
  } catch { return program; } finally { try { pyodide.globals.delete('__hookgrad_src'); } catch { /* not set */ } }
}
