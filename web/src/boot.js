// The playground's entry: the first script the page runs, kept small so it
// is fetched and evaluated long before the rest of the page's code. It
// starts what stands on the way to the first graph and takes longest — the
// sandbox frame (a process of its own in Chromium: an opaque origin), the
// engine handed into it, the program worker that loads the engine — and
// only then imports the page (main.js: lessons, graph view, player…), whose
// chunks were preloaded meanwhile (web/vite.config.js) and which finds the
// worker ready or nearly so. bench/PROFILE.md ("First graph") has the
// timeline this order is for.
//
// The build marks this script `async` (vite.config.js): it runs as soon as
// it has arrived, before the page's style sheet and first layout. So the
// page's code waits here for what a deferred script would have had: the
// whole document parsed and the style sheets applied (the graph's level of
// detail is chosen for the pane's size).
import { earlyRunner } from './early-runner.js';

earlyRunner();

const parsed = document.readyState !== 'loading' ? Promise.resolve()
  : new Promise((resolve) => { document.addEventListener('DOMContentLoaded', resolve, { once: true }); });
const styled = () => Promise.all([...document.querySelectorAll('link[rel=stylesheet]')].filter((l) => !l.sheet).map((l) => new Promise((resolve) => {
  l.addEventListener('load', resolve, { once: true });
  l.addEventListener('error', resolve, { once: true });
})));
parsed.then(styled).then(() => import('./main.js'));
