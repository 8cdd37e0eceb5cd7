// The embed as a guest on someone else's page (embed.html): what the hash asks
// for (step, autoplay, theme, autosize), telling the host page what happens
// (postMessage: resize, ready, step, done, error — hookgrad-element.js turns
// them into DOM events), and starting only once the figure is scrolled into
// view. Independent of the controller that runs and draws the scenario.
//
// Messages are plain objects { hookgrad: 'embed', v: 1, id, type, ...detail }
// posted to the parent with targetOrigin '*': they carry nothing private (the
// scenario is in the embed's own URL) and the host's origin is not known.

export const MESSAGE_TAG = 'embed';

/**
 * Reads the embed's options from its hash (after the `#lesson=` / `#s=` part
 * that model/state.js decodes). Unknown values fall back to the defaults.
 */
export function readEmbedParams(hash) {
  const q = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  const flag = (k) => q.has(k) && !['0', 'false', 'no'].includes(q.get(k));
  const theme = ['light', 'dark'].includes(q.get('theme')) ? q.get('theme') : 'auto';
  // No theme asked for: inside a host page the figure takes the light look
  // (most pages are light, and the host's look should win over the reader's
  // system setting); theme=auto follows the reader's system (issue 32).
  const themeAsked = q.get('theme') === 'auto' || theme !== 'auto';
  let step = null;
  if (q.get('step') === 'end') step = 'end';
  else if (q.has('step') && /^\d+$/.test(q.get('step'))) step = Number(q.get('step'));
  return {
    program: flag('program'),
    timeline: flag('timeline'),
    autoplay: flag('autoplay'),
    autosize: flag('autosize'),
    theme,
    themeAsked,
    step,
    id: q.get('id') || null,
  };
}

export class EmbedGuest {
  constructor({ params, win = window, doc = document } = {}) {
    this.params = params; this.win = win; this.doc = doc;
    this.hosted = win.parent && win.parent !== win;
    this.lastStep = null; this.lastHeight = 0;
    this.reducedMotion = !!win.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
    this.applyTheme();
    doc.documentElement.classList.toggle('autosize', !!params.autosize);
    if (params.autosize) this.watchHeight();
  }

  /** Autoplay unless the reader asked the system for less motion. */
  get autoplay() { return this.params.autoplay && !this.reducedMotion; }

  post(type, detail = {}) {
    if (!this.hosted) return;
    try { this.win.parent.postMessage({ hookgrad: MESSAGE_TAG, v: 1, id: this.params.id, type, ...detail }, '*'); } catch { /* a closed host: nothing to tell */ }
  }

  /**
   * theme=light|dark pins the palette whatever the reader's system says:
   * the page's stylesheet defines the light palette on :root and the dark one
   * in @media (prefers-color-scheme: dark); both are copied here under
   * :root[data-theme=…], which wins over either (higher specificity).
   */
  applyTheme() {
    const theme = this.params.theme === 'auto' && !this.params.themeAsked && this.hosted ? 'light' : this.params.theme;
    const root = this.doc.documentElement;
    if (theme === 'auto') return;
    root.dataset.theme = theme;
    root.style.colorScheme = theme;
    let light = ''; let dark = '';
    for (const sheet of this.doc.styleSheets) {
      let rules; try { rules = sheet.cssRules; } catch { continue; }
      for (const r of rules) {
        if (r.selectorText === ':root') light += r.style.cssText;
        else if (r.media && /prefers-color-scheme:\s*dark/.test(r.media.mediaText)) {
          for (const inner of r.cssRules) if (inner.selectorText === ':root') dark += inner.style.cssText;
        }
      }
    }
    const css = theme === 'dark' ? dark : light;
    if (!css) return;
    const style = this.doc.createElement('style');
    style.textContent = `:root[data-theme="${theme}"] { ${css} color-scheme: ${theme}; }`;
    this.doc.head.appendChild(style);
  }

  /** Posts the content's height whenever it changes (the host sizes its iframe to it). */
  watchHeight() {
    const measure = () => {
      const h = Math.ceil(this.doc.documentElement.getBoundingClientRect().height);
      if (h > 0 && h !== this.lastHeight) { this.lastHeight = h; this.post('resize', { height: h }); }
    };
    if (typeof ResizeObserver === 'function') new ResizeObserver(measure).observe(this.doc.documentElement);
    this.win.addEventListener('load', measure);
    measure();
  }

  /**
   * Calls fn once the element is on screen. Inside an iframe the observer's
   * implicit root is the top-level viewport, so this works for a plain
   * <iframe> on any origin too.
   */
  startWhenVisible(elem, fn) {
    // The custom element (it sets `id`) creates this frame only once it is
    // near the viewport already: start at once. (In a cross-origin frame the
    // observer ignores rootMargin, so waiting here would start later than that.)
    if (this.params.id || typeof IntersectionObserver !== 'function' || !elem) { fn(); return; }
    const io = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect(); fn();
    }, { rootMargin: '200px 0px' });
    io.observe(elem);
  }

  /**
   * The graph was drawn for the first time (or again after a run): `ready`,
   * then the step the player shows (held until now, so that a host hears
   * `ready` before any `step`).
   */
  ready(total) {
    this.post('ready', { total }); this.isReady = true;
    const held = this.heldStep; this.heldStep = null;
    if (held) this.step(...held);
  }

  /** The player's first step for a run: a number from the hash, else `fallback`. */
  firstStep(fallback) { return typeof this.params.step === 'number' ? this.params.step : fallback; }

  /**
   * After a run is drawn and the player loaded: step=end, autoplay (once, and
   * without animation for readers who prefer reduced motion: then the last
   * step is shown), and `ready` / `error` for the host.
   */
  started({ total, player, error = null, follow = () => {} }) {
    if (this.params.step === 'end') player.seek(total);
    this.ready(total);
    if (error) this.error(error.message ?? error);
    if (this.params.autoplay && !this.autoplayed) {
      this.autoplayed = true; follow();
      if (this.autoplay) player.play(); else player.seek(total);
    }
  }

  /** The player shows step k of total; `done` when it arrives at the last one. */
  step(k, total, text) {
    if (!this.isReady) { this.heldStep = [k, total, text]; return; }
    if (k === this.lastStep) return;
    const was = this.lastStep; this.lastStep = k;
    this.post('step', { step: k, total, text });
    if (total > 0 && k === total && was !== total) this.post('done', { step: k, total });
  }

  /** A run failed, the engine could not load, or the link was bad. */
  error(message) { this.post('error', { message: String(message) }); }
}
