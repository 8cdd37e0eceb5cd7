// The CLI's worker: loads Pyodide, the shim and the engine, runs one program
// and streams its output to the main thread as it is printed.
import { parentPort, workerData } from 'node:worker_threads';
import { loadPython } from '../python.js';

const send = (m) => parentPort.postMessage(m);
try {
  const py = await loadPython();
  send({ type: 'start' });
  const r = py.run(workerData.source, {
    filename: workerData.filename,
    semantics: workerData.semantics,
    trace: workerData.trace,
    onStdout: (text) => send({ type: 'out', text }),
    onStderr: (text) => send({ type: 'err', text }),
  });
  send({
    type: 'done',
    exception: r.exception,
    graph: workerData.trace ? r.graph : null,
    trace: workerData.trace ? r.trace : null,
  });
} catch (e) {
  send({ type: 'crash', message: e && e.stack ? e.stack : String(e) });
}
