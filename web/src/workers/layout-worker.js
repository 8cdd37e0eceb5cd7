// Lays out large graphs off the main thread (dagre is synchronous).
import { computeLayout } from '../model/layout.js';

self.onmessage = (ev) => {
  const { id, input } = ev.data;
  try {
    self.postMessage({ id, layout: computeLayout(input) });
  } catch (e) {
    self.postMessage({ id, error: String(e && e.message ? e.message : e) });
  }
};
