// <hookgrad-playground lesson="legacy-hook"></hookgrad-playground>
// <hookgrad-playground scenario="#s=…" program height="560"></hookgrad-playground>
// A custom element that shows hookgrad's embed (graph + player) in an iframe
// served next to this script. No dependencies; include it as a module script.
const base = new URL('./', import.meta.url);

class HookgradPlayground extends HTMLElement {
  static get observedAttributes() { return ['lesson', 'scenario', 'program', 'height']; }
  connectedCallback() { this.render(); }
  attributeChangedCallback() { if (this.isConnected) this.render(); }
  render() {
    const params = new URLSearchParams();
    const scenario = (this.getAttribute('scenario') || '').replace(/^#/, '');
    if (scenario) for (const [k, v] of new URLSearchParams(scenario)) params.set(k, v);
    else params.set('lesson', this.getAttribute('lesson') || 'legacy-hook');
    if (this.hasAttribute('program')) params.set('program', '1');
    const frame = document.createElement('iframe');
    frame.src = new URL(`embed.html#${params}`, base).href;
    frame.title = this.getAttribute('title') || 'hookgrad: PyTorch autograd and hooks';
    frame.loading = 'lazy';
    frame.style.cssText = `border:0;width:100%;max-width:100%;height:${Number(this.getAttribute('height')) || 480}px;display:block`;
    this.replaceChildren(frame);
  }
}
if (!customElements.get('hookgrad-playground')) customElements.define('hookgrad-playground', HookgradPlayground);
