// <script type="module" src="https://YOUR-HOST/hookgrad/hookgrad-element.js"></script>
// <hookgrad-playground lesson="legacy-hook"></hookgrad-playground>
// <hookgrad-playground scenario="#s=…" program step="end" theme="dark"></hookgrad-playground>
//
// A custom element that shows hookgrad's embed (graph + player) in an iframe
// served next to this script, so the host page's scripts and styles never
// touch hookgrad's (and hookgrad's never touch the page's). No dependencies.
//
// - Sizes itself to its content: the embed posts its height (iframe-resizer's
//   pattern); a `height` attribute pins the height instead.
// - Starts when scrolled near the viewport (IntersectionObserver).
// - Re-dispatches the embed's messages as DOM CustomEvents on the element:
//   `ready`, `step` ({step, total, text}), `done` ({step, total}), `error` ({message}).
// Attributes: lesson, scenario, language, program, timeline, step, autoplay, theme, height, title.
const base = new URL('./', import.meta.url);
const ATTRS = ['lesson', 'scenario', 'language', 'program', 'timeline', 'step', 'autoplay', 'theme', 'height', 'title'];
const EVENTS = new Set(['ready', 'step', 'done', 'error']);
let seq = 0;

class HookgradPlayground extends HTMLElement {
  static get observedAttributes() { return ATTRS; }

  constructor() {
    super();
    this.frameId = `hg${++seq}`;
    this.frame = null; this.visible = false; this.io = null;
    this.onMessage = (e) => this.receive(e);
  }

  connectedCallback() {
    window.addEventListener('message', this.onMessage);
    if (typeof IntersectionObserver === 'function') {
      this.io = new IntersectionObserver((entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        this.io.disconnect(); this.io = null; this.visible = true; this.render();
      }, { rootMargin: '300px 0px' });
      this.io.observe(this);
      this.placeholder();
    } else { this.visible = true; this.render(); }
  }

  disconnectedCallback() {
    window.removeEventListener('message', this.onMessage);
    this.io?.disconnect(); this.io = null;
  }

  attributeChangedCallback(name, old, value) {
    if (old === value || !this.isConnected) return;
    if (name === 'height' || name === 'title') { this.applySize(); if (this.frame) this.frame.title = this.label(); return; }
    if (this.visible) this.render();
  }

  label() { return this.getAttribute('title') || 'hookgrad: PyTorch autograd and hooks'; }

  /** A pinned height in px, or null to follow the content. */
  fixedHeight() { const h = Number(this.getAttribute('height')); return h > 0 ? h : null; }

  /** Reserves about the embed's height before it loads, so the page does not jump. */
  guessHeight() {
    const w = this.getBoundingClientRect().width || 700;
    return Math.round(Math.min(440, Math.max(220, 0.56 * w)) + (w < 520 ? 230 : 170));
  }

  placeholder() {
    if (this.frame) return;
    const box = document.createElement('div');
    box.style.cssText = `height:${this.fixedHeight() ?? this.guessHeight()}px`;
    this.replaceChildren(box);
  }

  applySize(height) {
    if (!this.frame) return;
    const h = this.fixedHeight() ?? height ?? this.contentHeight ?? this.guessHeight();
    this.frame.style.height = `${h}px`;
  }

  src() {
    const params = new URLSearchParams();
    const scenario = (this.getAttribute('scenario') || '').replace(/^#/, '');
    if (scenario) for (const [k, v] of new URLSearchParams(scenario)) params.set(k, v);
    else params.set('lesson', this.getAttribute('lesson') || 'legacy-hook');
    // language="python": the lesson's PyTorch code (its figure at once from the JS twin while Python loads).
    const language = this.getAttribute('language');
    if (language === 'python' || language === 'py') params.set('lang', 'python');
    if (this.hasAttribute('program') && this.getAttribute('program') !== 'false') params.set('program', '1');
    if (this.hasAttribute('timeline') && this.getAttribute('timeline') !== 'false') params.set('timeline', '1');
    const step = this.getAttribute('step');
    if (step) params.set('step', step);
    if (this.hasAttribute('autoplay') && this.getAttribute('autoplay') !== 'false') params.set('autoplay', '1');
    const theme = this.getAttribute('theme');
    if (theme === 'light' || theme === 'dark' || theme === 'auto') params.set('theme', theme);
    if (!this.fixedHeight()) params.set('autosize', '1');
    params.set('id', this.frameId);
    return new URL(`embed.html#${params}`, base).href;
  }

  render() {
    const frame = document.createElement('iframe');
    frame.src = this.src();
    frame.title = this.label();
    frame.style.cssText = 'border:0;width:100%;max-width:100%;display:block;color-scheme:normal';
    this.frame = frame; this.contentHeight = null;
    this.applySize();
    this.replaceChildren(frame);
  }

  receive(e) {
    const d = e.data;
    if (!this.frame || e.source !== this.frame.contentWindow || e.origin !== base.origin) return;
    if (!d || d.hookgrad !== 'embed' || d.id !== this.frameId) return;
    if (d.type === 'resize' && Number(d.height) > 0) { this.contentHeight = Math.ceil(d.height); this.applySize(this.contentHeight); return; }
    if (!EVENTS.has(d.type)) return;
    const { hookgrad, v, id, type, ...detail } = d; // eslint-disable-line no-unused-vars
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

if (!customElements.get('hookgrad-playground')) {
  // A block by default, in the page's lowest-priority rule: the page's own CSS wins.
  const style = document.createElement('style');
  style.textContent = ':where(hookgrad-playground) { display: block; }';
  document.head.prepend(style);
  customElements.define('hookgrad-playground', HookgradPlayground);
}
