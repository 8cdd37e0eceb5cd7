// Lays out large graphs off the main thread (dagre, or layered.js for big ones).
import { layoutFor } from '../model/layout.js';

self.onmessage = (ev) => {
  const { id, input } = ev.data;
  try {
    self.postMessage({ id, layout: layoutFor(input) });
  } catch (e) {
    self.postMessage({ id, error: String(e && e.message ? e.message : e) });
  }
};
