// The playground's entry: the first script the page runs, kept small so it
// is fetched and evaluated long before the rest of the page's code. It
// starts the sandbox and the engine (early-runner.js, bootPage) and then
// imports the page (main.js: lessons, graph view, player…).
import { bootPage } from './early-runner.js';

bootPage(() => import('./main.js'));
