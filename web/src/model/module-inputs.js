// Pure: a module call's inputs, read from the recorded ops (shared by the
// legacy-hook table and the "predict" question).

/** Tensors a module call consumed that it did not create, in order of first use (its inputs). */
export function callInputs(model, call) {
  const ins = [];
  for (let i = call.start; i < Math.min(call.end, model.trace.length); i++) {
    const ev = model.trace[i];
    if (ev.type !== 'op') continue;
    for (const t of ev.inputs || []) if (!call.tensors.has(t) && !ins.includes(t)) ins.push(t);
  }
  return ins;
}
