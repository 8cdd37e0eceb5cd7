// Pure: a Python traceback as the reader should see it.

/**
 * The traceback's frames of the reader's program only: the runner already
 * drops the shim's; a call into JavaScript (js.fetch) adds Pyodide's own
 * frames from blob: URLs, which say nothing to the reader.
 */
export function userFrames(text) {
  const out = []; let skip = false;
  for (const line of text.split('\n')) {
    const frame = /^  File "([^"]*)"/.exec(line);
    if (frame) { skip = frame[1] !== 'main.py'; if (!skip) out.push(line); continue; }
    if (skip && /^    /.test(line)) continue; // the skipped frame's source lines
    skip = false; out.push(line);
  }
  return out.join('\n');
}
