// The page's one Runner (runner.js), created by the first caller: boot.js
// makes it before the page's modules have loaded, so the sandbox and the
// program worker start while they load; the Controller (controller.js) then
// takes this same runner instead of starting a second worker.
import { Runner } from './runner.js';

let runner = null;
/** The page's runner (pkg/ beside the page), started on first call. */
export function earlyRunner() {
  runner ||= new Runner({ pkgUrl: new URL('pkg/hookgrad.js', document.baseURI).href });
  return runner;
}
