// The embed's entry (embed.html), as boot.js is the playground's: the
// sandbox, the engine and the program worker start first (early-runner.js,
// bootPage), then the embed's code (embed.js: controller, graph view,
// player), preloaded meanwhile, is imported and runs the figure's program
// on the worker that is already loading the engine.
import { bootPage } from './early-runner.js';

bootPage(() => import('./embed.js'));
