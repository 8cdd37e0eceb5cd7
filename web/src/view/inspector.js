// Inspector: details of the selected tensor/node at the current frame, and
// the editing controls (graph edits and hooks). Every edit is a program
// rewrite handed to `onProgram`; the page then runs the new program.
import { h } from './dom.js';
import { formatValue, formatList, formatShape, pyBool } from '../model/format.js';
import { HOOK_KIND_LABEL, formatHookValue, describeStep } from '../model/trace-model.js';
import * as PE from '../model/program-edit.js';

const row = (k, v, cls = '') => h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: `mono ${cls}` }, v));

function hookList(hooks, frame, title) {
  if (!hooks?.length) return h('p', { class: 'muted' }, `${title}: none`);
  return h('div', {}, h('h4', {}, title), h('ol', { class: 'hooklist' }, hooks.map((hk) => {
    const fire = frame?.hookFires.get(hk.handle);
    return h('li', { class: fire ? 'fired' : '' },
      h('span', { class: 'mono' }, hk.name || '<lambda>'), ' ', h('span', { class: 'badge' }, HOOK_KIND_LABEL[hk.kind] || hk.kind),
      fire ? h('div', { class: 'mono fire' }, `${formatHookValue(hk.kind, fire.before)} → ${formatHookValue(hk.kind, fire.after)}`) : null);
  })));
}

/** JS expression for a node in the program, or null. */
export function nodeRef(model, nodeId, names) {
  for (const t of model.tensors.values()) if (t.gradFn === nodeId && names.includes(t.name)) return `${t.name}.gradFn`;
  for (const t of model.tensors.values()) {
    if (t.gradFn == null || !names.includes(t.name)) continue;
    const j = (model.nodes.get(t.gradFn)?.next || []).findIndex((e) => e.node === nodeId);
    if (j >= 0) return `${t.name}.gradFn.nextFunctions[${j}][0]`;
  }
  return null;
}

function select(label, options, value) {
  return h('select', { 'aria-label': label }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}

function attachForm({ kinds, refOf, targetLabel, program, onProgram, defaultTemplate = 'scale' }) {
  const kindSel = select('Hook kind', kinds.map((k) => [k, PE.HOOK_KINDS[k].label]), kinds[0]);
  const tplSel = select('Hook template', Object.entries(PE.TEMPLATES).map(([k, t]) => [k, t.label]), defaultTemplate);
  const btn = h('button', { class: 'btn small primary', type: 'button', onclick: () => {
    const kind = kindSel.value; const ref = refOf(kind);
    if (!ref) return;
    const code = PE.hookBlock({ id: PE.nextHookId(program), kind, ref, template: tplSel.value, targetLabel: PE.HOOK_KINDS[kind].target === 'global' ? 'all modules' : typeof targetLabel === 'function' ? targetLabel() : targetLabel });
    const target = PE.HOOK_KINDS[kind].target;
    onProgram(target === 'module' ? PE.insertBeforeModuleCall(program, ref, code) : target === 'global' ? PE.insertBeforeModuleCall(program, null, code) : PE.insertBeforeBackward(program, code));
  } }, 'Attach hook');
  return h('div', { class: 'form' }, h('h4', {}, 'Attach a hook'), kindSel, tplSel, btn);
}

function blockControls(program, onProgram, onEdit) {
  const blocks = PE.parseHookBlocks(program);
  if (!blocks.length) return null;
  return h('div', {}, h('h4', {}, 'Hooks added here'), h('ol', { class: 'blocks' }, blocks.map((b, i) => h('li', { class: b.disabled ? 'disabled' : '' },
    h('div', { class: 'mono small' }, `${b.id}: ${b.title}${b.disabled ? ' (disabled)' : ''}${b.removed ? ' (handle.remove())' : ''}`),
    h('div', { class: 'btnrow' },
      h('button', { class: 'btn tiny', type: 'button', 'aria-label': `Edit hook ${b.id}`, onclick: () => onEdit(b) }, 'Edit'),
      h('button', { class: 'btn tiny', type: 'button', 'aria-label': `Move hook ${b.id} up`, disabled: i === 0, onclick: () => onProgram(PE.moveBlock(program, b.id, -1)) }, '↑'),
      h('button', { class: 'btn tiny', type: 'button', 'aria-label': `Move hook ${b.id} down`, disabled: i === blocks.length - 1, onclick: () => onProgram(PE.moveBlock(program, b.id, 1)) }, '↓'),
      h('button', { class: 'btn tiny', type: 'button', 'aria-label': `${b.disabled ? 'Enable' : 'Disable'} hook ${b.id}`, onclick: () => onProgram(PE.toggleDisabled(program, b.id)) }, b.disabled ? 'Enable' : 'Disable'),
      h('button', { class: 'btn tiny', type: 'button', 'aria-label': `Toggle ${b.id}.remove()`, onclick: () => onProgram(PE.toggleHandleRemove(program, b.id)) }, b.removed ? 'Undo remove()' : 'handle.remove()'),
      h('button', { class: 'btn tiny danger', type: 'button', 'aria-label': `Delete hook ${b.id}`, onclick: () => onProgram(PE.removeBlock(program, b.id)) }, 'Delete')),
  ))));
}

/**
 * Renders the inspector. ctx: { session, frame, selected, program, onProgram, onSelect, onEditBlock }.
 */
export function renderInspector(infoRoot, ctx) {
  const { session, frame, selected = {}, program, onProgram, onEditBlock, formsRoot = null } = ctx;
  // Forms are rebuilt only when asked (new run, selection or program), so a
  // playing trace does not reset what the learner is choosing.
  const forms = formsRoot ? document.createDocumentFragment() : null;
  const root = { append: (...els) => { for (const e of els) { if (!e) continue; if (e.classList?.contains('form') || e.dataset?.part === 'forms') { if (forms) forms.append(e); } else infoRoot.append(e); } } };
  infoRoot.replaceChildren();
  const done = () => { if (formsRoot) formsRoot.replaceChildren(forms); };
  if (!session) { infoRoot.append(h('p', { class: 'muted' }, 'Run the program to inspect its graph.')); done(); return; }
  const { model } = session; const names = PE.declaredNames(program);
  const t = selected.tensor != null ? model.tensors.get(selected.tensor) : null;
  const n = selected.node != null ? model.nodes.get(selected.node) : null;
  if (t) {
    const grad = frame.grads.get(t.id) ?? null;
    const ref = names.includes(t.name) ? t.name : null;
    root.append(
      h('h3', {}, h('span', { class: 'mono' }, t.name || `t${t.id}`), ' ', h('span', { class: 'muted' }, `tensor ${formatShape(t.shape)}`)),
      h('table', { class: 'kv' }, row('data', formatValue(t.data)), row('grad', formatValue(grad), grad !== null ? 'filled' : ''), row('requires_grad', pyBool(t.requiresGrad)),
        row('is_leaf', pyBool(t.isLeaf)), row('grad_fn', t.gradFn != null ? model.nName(t.gradFn) : 'None'), row('retains_grad', pyBool(t.retainsGrad))),
      hookList(t.hooks, frame, 'Hooks (in order)'));
    // The figure draws a tensor and its backward node as one record: the node's hooks are listed here too.
    const own = model.nodes.get(t.gradFn ?? model.accOf.get(t.id));
    if (own?.preHooks?.length) root.append(hookList(own.preHooks, frame, `Pre-hooks of ${own.name}`));
    if (own?.postHooks?.length) root.append(hookList(own.postHooks, frame, `Hooks of ${own.name}`));
    if (ref) {
      const kinds = ['tensor', ...(t.isLeaf ? ['post-accumulate'] : ['retain-grad'])];
      root.append(attachForm({ kinds, refOf: () => ref, targetLabel: ref, program, onProgram }));
      if (t.isLeaf) {
        const input = h('input', { type: 'text', value: JSON.stringify(t.data), 'aria-label': `New value of ${ref}`, class: 'mono' });
        root.append(h('div', { class: 'form' }, h('h4', {}, 'Change value'), input, h('button', { class: 'btn small', type: 'button', onclick: () => {
          let v; try { v = JSON.parse(input.value); } catch { input.setCustomValidity('Not a number or array'); input.reportValidity(); return; }
          const p = PE.setLeafValue(program, ref, v); if (p) onProgram(p);
        } }, 'Set value')));
      }
      const tensorNames = names.filter((x) => [...model.tensors.values()].some((u) => u.name === x));
      root.append(opForm(program, tensorNames, onProgram, ref));
      const wrapped = !t.isLeaf ? PE.wrapVariableInModule(program, ref, `Wrap_${ref}`) : null;
      if (wrapped) root.append(h('div', { class: 'form' }, h('button', { class: 'btn small', type: 'button', onclick: () => onProgram(wrapped) }, `Wrap ${ref}'s op in a module`)));
      root.append(h('div', { class: 'form' }, h('button', { class: 'btn small danger', type: 'button', 'aria-label': `Delete ${ref}`, onclick: () => onProgram(PE.deleteVariable(program, ref)) }, `Delete ${ref} (and lines using it)`)));
    } else {
      root.append(h('p', { class: 'muted small' }, 'This tensor has no variable of the same name in the program, so it cannot be edited from here.'));
    }
  } else if (n) {
    const io = frame.nodeIO.get(n.id);
    root.append(
      h('h3', {}, h('span', { class: 'mono' }, n.name), ' ', h('span', { class: 'muted' }, `node ${n.id}`)),
      h('table', { class: 'kv' },
        n.variable != null ? row('variable', model.tName(n.variable)) : null,
        row('next_functions', (n.next || []).map((e) => `(${e.node != null ? model.nName(e.node) : 'None'}, ${e.inputNr})`).join(', ') || '()'),
        row('grad_outputs', io ? formatList(io.gradOutputs) : '—'), row('grad_inputs', io ? formatList(io.gradInputs) : '—')),
      hookList(n.preHooks, frame, 'Pre-hooks'), hookList(n.postHooks, frame, 'Hooks'));
    const ref = nodeRef(model, n.id, names);
    if (ref) root.append(attachForm({ kinds: ['node-pre', 'node-post'], refOf: () => ref, targetLabel: ref, program, onProgram, defaultTemplate: 'print' }));
  } else {
    const all = [...model.tensors.values()].filter((x) => (x.requiresGrad && (x.isLeaf || x.retainsGrad)) || frame.grads.get(x.id) != null);
    // Big graphs: a table of 1,000 rows costs ~40 ms of layout per step; the rest is one click or search away.
    const MAX_ROWS = 60; const rows = all.slice(0, MAX_ROWS);
    root.append(h('p', { class: 'muted small' }, 'Click a tensor or a backward node to inspect it and attach hooks.'),
      h('h4', {}, '.grad at this step'),
      h('table', { class: 'kv grads', 'aria-label': 'Gradients at this step' }, rows.map((x) => row(`${x.name || `t${x.id}`}.grad`, formatValue(frame.grads.get(x.id) ?? null), frame.grads.get(x.id) != null ? 'filled' : ''))),
      all.length > MAX_ROWS ? h('p', { class: 'muted small' }, `… and ${all.length - MAX_ROWS} more: click a tensor in the graph, or find it by name.`) : null);
    // From the first step the figure shows (a training loop: its last pass).
    const fired = model.steps.slice(model.figureStart || 0, frame.k).filter((s) => s.event.type === 'hook');
    if (fired.length) root.append(h('h4', {}, `Hooks fired so far (${fired.length})`), h('ol', { class: 'hooklog', 'aria-label': 'Hooks fired so far' }, fired.slice(-12).map((s) => h('li', { class: 'mono small' }, describeStep(model, s)))));
    const tensorNames = names.filter((x) => [...model.tensors.values()].some((t) => t.name === x));
    root.append(graphEdits(program, tensorNames, onProgram));
    const mods = PE.declaredModules(program);
    if (mods.length) {
      const mSel = select('Module', mods.map((m) => [m.ref, `${m.ref} (${m.name})`]), mods[0].ref);
      const form = attachForm({ kinds: ['module-pre', 'module-forward', 'module-full-backward', 'module-full-backward-pre', 'module-backward', 'global-forward-pre', 'global-forward', 'global-full-backward-pre', 'global-full-backward'], refOf: () => mSel.value, targetLabel: () => mSel.value, program, onProgram, defaultTemplate: 'print' });
      form.insertBefore(mSel, form.children[1]);
      form.querySelector('h4').textContent = 'Attach a module hook';
      root.append(form);
    }
  }
  const bc = blockControls(program, onProgram, onEditBlock);
  if (bc) { bc.dataset.part = 'forms'; root.append(bc); }
  done();
}

const freshName = (names, p) => { let i = 1; while (names.includes(`${p}${i}`)) i++; return `${p}${i}`; };

/** "Apply an op to the selected tensor": ref ∘ op (∘ second input). */
function opForm(program, names, onProgram, ref) {
  const opSel = select('Operation', Object.keys(PE.OPS).map((o) => [o, o]), 'mul');
  const bSel = select('Second input', names.map((x) => [x, x]), names.find((x) => x !== ref) ?? ref);
  return h('div', { class: 'form' }, h('h4', {}, `Apply an op to ${ref}`), h('div', { class: 'btnrow' }, h('span', { class: 'mono' }, `${ref}.`), opSel, bSel,
    h('button', { class: 'btn small', type: 'button', onclick: () => onProgram(PE.applyOp(program, { op: opSel.value, inputs: [ref, bSel.value], name: freshName(PE.declaredNames(program), 'y') })) }, 'Apply op')));
}

function graphEdits(program, names, onProgram) {
  const fresh = (p) => { let i = 1; while (names.includes(`${p}${i}`)) i++; return `${p}${i}`; };
  const val = h('input', { type: 'text', value: '1', 'aria-label': 'Value of the new leaf', class: 'mono', size: 6 });
  const opSel = select('Operation', Object.keys(PE.OPS).map((o) => [o, o]), 'mul');
  const aSel = select('First input', names.map((x) => [x, x]), names[0]);
  const bSel = select('Second input', names.map((x) => [x, x]), names[1] ?? names[0]);
  return h('div', { class: 'form' }, h('h4', {}, 'Edit the graph'),
    h('div', { class: 'btnrow' }, val, h('button', { class: 'btn small', type: 'button', onclick: () => {
      let v; try { v = JSON.parse(val.value); } catch { return; }
      onProgram(PE.addLeaf(program, { name: fresh('x'), value: v }));
    } }, 'Add leaf')),
    names.length ? h('div', { class: 'btnrow' }, aSel, opSel, bSel, h('button', { class: 'btn small', type: 'button', onclick: () => onProgram(PE.applyOp(program, { op: opSel.value, inputs: [aSel.value, bSel.value], name: fresh('y') })) }, 'Apply op')) : null);
}
