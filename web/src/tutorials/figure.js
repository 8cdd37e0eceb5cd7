// Live figures: the playground's embed (graph + player) for a program, opened
// at the step that matters — a <hookgrad-playground scenario step> element
// (web/hookgrad-element.js), or a plain iframe of embed.html#s=… where the
// site's element does not take a step.
//
// Markup:
//   <figure class="hg-figure" id="fig-1" data-cell="cell-video" data-at="hook:double">
//     <figcaption>…</figcaption>
//   </figure>
// The program is the linked cell's code (or a <pre class="fig-src"> inside the
// figure). `data-at` names the step to open at, found in the program's own
// trace: `hook:<function name>`, `kind:<hook kind>`, `node:<node name>`,
// `grad:<tensor name>` (its .grad written), `forward` (end of the forward
// pass) or `end`; `…@2` picks the second match. The step is looked up by
// running the program once here (the same Runner as the code cells), so a
// figure never opens at a step number typed into the page.
import { analyze, frameAt, describeStep } from '../model/trace-model.js';
import { encodeState } from '../model/state.js';

/** Index (1-based step k, as the player counts) of the event `at` names, or null. */
export function findStep(model, at) {
  if (!at || at === 'forward') return model.forwardEnd;
  if (at === 'end') return model.steps.length;
  const m = /^(hook|kind|node|grad):(.+?)(?:@(\d+))?$/.exec(at);
  if (!m) return null;
  const [, what, name, nth] = m;
  let seen = 0;
  for (const s of model.steps) {
    const ev = s.event;
    let hit = false;
    if (what === 'hook') hit = ev.type === 'hook' && hookName(model, ev) === name;
    else if (what === 'kind') hit = ev.type === 'hook' && ev.kind === name;
    else if (what === 'node') hit = ev.type === 'node' && ev.name === name;
    else if (what === 'grad') hit = ev.type === 'accumulate' && model.tName(ev.tensor) === name;
    if (hit && ++seen === Number(nth || 1)) return s.index + 1;
  }
  return null;
}

function hookName(model, ev) {
  const owner = model.handleOwner.get(ev.handle);
  return owner?.name ?? ev.name ?? null;
}

let elementPromise = null;
/**
 * The site's <hookgrad-playground> element class, if it takes a `step` (the
 * embed helper's version); null means plain iframes of embed.html#s=….
 */
function playgroundElement(site) {
  elementPromise ||= import(/* @vite-ignore */ new URL('hookgrad-element.js', site).href)
    .then(() => {
      const C = customElements.get('hookgrad-playground');
      return C && (C.observedAttributes || []).includes('step') ? C : null;
    })
    .catch(() => null);
  return elementPromise;
}

export class Figure {
  /**
   * @param el the figure element
   * @param runner the page's Runner
   * @param site URL of the site root (where embed.html is)
   */
  constructor(el, runner, site) {
    this.el = el; this.runner = runner; this.site = site;
    this.program = el.querySelector('pre.fig-src')?.textContent ?? '';
    this.semantics = el.dataset.semantics || 'pytorch-2';
    this.lang = 'js'; // 'python' once the reader edits the Python of the figure's cell
    this.seq = 0;
    this.box = document.createElement('div');
    this.box.className = 'fig-frame';
    this.stepText = document.createElement('p');
    this.stepText.className = 'fig-step';
    this.stepText.setAttribute('aria-live', 'polite');
    this.stepText.textContent = 'The figure loads when it scrolls into view.';
    const caption = el.querySelector('figcaption');
    el.insertBefore(this.box, caption);
    el.insertBefore(this.stepText, caption);
    window.addEventListener('message', (ev) => this.onMessage(ev));
  }

  /** Sets the program (and semantics); shows it if the figure has been shown before or is visible. */
  set(program, semantics = this.semantics, lang = 'js') {
    const changed = program !== this.program || semantics !== this.semantics || lang !== this.lang;
    this.program = program; this.semantics = semantics; this.lang = lang;
    if (changed && this.shown) this.show();
  }

  /** Runs the program to find the step, then (re)creates the embed at that step. */
  async show() {
    this.shown = true;
    const seq = ++this.seq;
    this.el.classList.add('loading');
    const result = await this.runner.run(this.program, this.semantics, this.lang);
    if (seq !== this.seq) return; // a newer program replaced this one meanwhile
    const model = analyze(result.graph, result.trace);
    const at = this.el.dataset.at || 'forward';
    let step = findStep(model, at);
    if (step == null) step = model.steps.length;
    this.step = step; this.total = model.steps.length;
    const frame = frameAt(model, step);
    const where = step === 0 ? 'before anything ran' : describeStep(model, frame.step);
    this.stepText.textContent = result.error
      ? `The program stopped with an error: ${result.error.message}`
      : `Shown at step ${step} of ${model.steps.length} — ${where}`;
    this.el.dataset.step = String(step);
    this.el.dataset.total = String(model.steps.length);
    await this.mount(encodeState({ program: this.program, semantics: this.semantics, step, lang: this.lang }));
    this.el.classList.remove('loading');
  }

  async mount(hash) {
    const Element = await playgroundElement(this.site);
    if (Element) {
      // <hookgrad-playground scenario step>: sizes itself to the embed's content.
      const el = document.createElement('hookgrad-playground');
      el.setAttribute('scenario', hash);
      el.setAttribute('step', String(this.step));
      el.setAttribute('title', this.frameTitle());
      // A pinned height: the embed's graph fills it. Its own content height
      // (autosize) leaves the graph a strip on a phone, too small to read.
      el.setAttribute('height', String(this.height()));
      this.iframe = null;
      this.box.replaceChildren(el);
      this.el.dataset.src = hash;
      return;
    }
    const iframe = document.createElement('iframe');
    // A fresh element per program: changing only the hash of a loaded embed
    // would not make it run the new program.
    iframe.src = new URL(`embed.html${hash}`, this.site).href;
    iframe.title = this.frameTitle();
    iframe.className = 'fig-iframe';
    this.iframe = iframe;
    this.box.replaceChildren(iframe);
    this.el.dataset.src = iframe.src;
  }

  /** Figure height in px: `data-height`, else by the column's width. */
  height() {
    const fixed = Number(this.el.dataset.height);
    if (fixed > 0) return fixed;
    const w = this.box.getBoundingClientRect().width || 700;
    return w < 560 ? 580 : 560;
  }

  frameTitle() {
    return `${this.el.querySelector('figcaption strong')?.textContent?.replace(/\.$/, '') || 'Figure'}: live autograd graph`;
  }

  /** An embed that reports its content height (the embed helper's protocol) sizes the frame. */
  onMessage(ev) {
    if (!this.iframe || ev.source !== this.iframe.contentWindow) return;
    const d = ev.data;
    const h = d && typeof d === 'object' ? Number(d.height) : NaN;
    if (Number.isFinite(h) && h > 200 && h < 2000) this.iframe.style.height = `${Math.ceil(h)}px`;
  }
}
