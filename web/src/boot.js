// The playground's entry: the first script the page runs, kept small so it
// is fetched and evaluated long before the rest of the page's code. It
// starts what stands on the way to the first graph and takes longest — the
// sandbox (its frame, written into the page's HTML by the build, has been
// loading since the page was parsed), the engine handed into it, the
// program worker that loads the engine — and only then imports the page
// (main.js: lessons, graph view, player…), whose chunks were preloaded
// meanwhile (web/vite.config.js) and which finds the worker ready or nearly
// so. bench/PROFILE.md ("First graph") has the timeline this order is for.
//
// The build marks this script `async` (web/vite.config.js): it runs as soon
// as it has arrived, before the page's first layout. So the page's code
// waits here for what a deferred script would have had: the whole document
// parsed and its style sheets applied (the graph's level of detail is
// chosen for the pane's size).
import { earlyRunner } from './early-runner.js';
import { PAGE_FRAME_ID } from './sandbox/host.js';

const parsed = document.readyState !== 'loading' ? Promise.resolve()
  : new Promise((resolve) => { document.addEventListener('DOMContentLoaded', resolve, { once: true }); });
// The sandbox frame is the first thing in <body>: in the rare case this
// script arrived before the parser got there, wait (else a second frame).
if (document.getElementById(PAGE_FRAME_ID) || document.readyState !== 'loading') earlyRunner();
else parsed.then(earlyRunner);
const styled = () => Promise.all([...document.querySelectorAll('link[rel=stylesheet]')].filter((l) => !l.sheet).map((l) => new Promise((resolve) => {
  l.addEventListener('load', resolve, { once: true });
  l.addEventListener('error', resolve, { once: true });
})));
parsed.then(styled).then(() => import('./main.js'));
