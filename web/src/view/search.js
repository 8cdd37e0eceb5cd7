// Find a tensor, backward node or module of the figure by name: a search
// box in the graph pane's head. Typing shows the first match; Enter goes to
// the next (Shift+Enter: the previous); the camera centres the match at a
// readable zoom and rings it. A module match offers Collapse / Expand.

/**
 * Matches of `query` among index entries { label, kind, target }, best
 * first: exact name, then names starting with it, then containing it; in
 * each group in the figure's order. Case-insensitive. Pure.
 */
export function findMatches(index, query) {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const exact = []; const prefix = []; const inside = [];
  for (const e of index) {
    const l = e.label.toLowerCase();
    if (l === q) exact.push(e); else if (l.startsWith(q)) prefix.push(e); else if (l.includes(q)) inside.push(e);
  }
  return [...exact, ...prefix, ...inside];
}

export class GraphSearch {
  /**
   * input: the <input type=search>; status: where "2 / 17" goes; toggle: a
   * button for a module match; view: the GraphView (searchIndex(), showMatch(entry), clearMatch()).
   */
  constructor({ input, status = null, toggle = null, view, onToggleModule = () => {} }) {
    this.input = input; this.status = status; this.toggle = toggle; this.view = view; this.onToggleModule = onToggleModule;
    this.matches = []; this.i = -1; this.query = '';
    if (!input) return;
    input.addEventListener('input', () => this.search(input.value));
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); if (input.value.trim() !== this.query) this.search(input.value); else this.next(e.shiftKey ? -1 : 1); }
      else if (e.key === 'Escape' && input.value) { e.preventDefault(); e.stopPropagation(); input.value = ''; this.search(''); }
    });
    if (toggle) toggle.addEventListener('click', () => { const m = this.matches[this.i]; if (m?.module) this.onToggleModule(m.module); });
  }

  /** New graph: the same query is searched again in it. */
  refresh() { if (this.input?.value.trim()) this.search(this.input.value, { keep: true }); else this.say(''); }

  search(query, { keep = false } = {}) {
    const prev = this.matches[this.i];
    this.query = query.trim();
    this.matches = findMatches(this.view.searchIndex(), this.query);
    // After a relayout (a module toggled), stay on the same match.
    const again = keep && prev ? this.matches.findIndex((m) => m.label === prev.label && m.kind === prev.kind) : -1;
    this.i = this.matches.length ? Math.max(0, again) : -1;
    this.show();
  }

  next(d = 1) {
    if (!this.matches.length) return;
    this.i = (this.i + d + this.matches.length) % this.matches.length;
    this.show();
  }

  show() {
    const m = this.matches[this.i];
    if (!m) {
      this.view.clearMatch();
      this.say(this.query ? 'no match' : '');
      if (this.toggle) this.toggle.hidden = true;
      this.input?.setAttribute('aria-invalid', this.query ? 'true' : 'false');
      return;
    }
    this.input?.setAttribute('aria-invalid', 'false');
    const where = this.view.showMatch(m);
    this.say(`${this.i + 1} / ${this.matches.length} · ${m.kind} ${m.label}${m.module && m.collapsed ? ' (collapsed)' : ''}${where ? ` ${where}` : ''}`);
    if (this.toggle) {
      this.toggle.hidden = !m.module;
      if (m.module) this.toggle.textContent = m.collapsed ? 'Expand' : 'Collapse';
      if (m.module) this.toggle.setAttribute('aria-label', `${m.collapsed ? 'Expand' : 'Collapse'} module ${m.label}`);
    }
  }

  say(text) { if (this.status) { this.status.textContent = text; this.status.title = text; } }
}
