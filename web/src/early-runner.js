// The page's one Runner (runner.js), created by the first caller: a page's
// boot script (boot.js, embed-boot.js) makes it before the page's modules
// have loaded, so the sandbox and the program worker start while they load;
// the Controller (controller.js) then takes this same runner instead of
// starting a second worker.
import { Runner } from './runner.js';
import { PAGE_FRAME_ID } from './sandbox/host.js';

let runner = null;
/** The page's runner (pkg/ beside the page), started on first call. */
export function earlyRunner() {
  runner ||= new Runner({ pkgUrl: new URL('pkg/hookgrad.js', document.baseURI).href });
  return runner;
}

/**
 * What a boot script does: start the runner — the sandbox (its frame,
 * written into the page's HTML by the build, has been loading since the
 * page was parsed), the engine handed into it, the program worker that
 * loads the engine — and only then `load()` the page's code, whose chunks
 * were preloaded meanwhile (web/vite.config.js) and which finds the worker
 * ready or nearly so. bench/PROFILE-first-graph.md has the timeline.
 *
 * The build marks a boot script `async`: it runs as soon as it has arrived,
 * before the page's first layout. So the page's code waits here for what a
 * deferred script would have had: the whole document parsed and its style
 * sheets applied (the graph's level of detail is chosen for the pane's size).
 */
export function bootPage(load) {
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
  return parsed.then(styled).then(load);
}
