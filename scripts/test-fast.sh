#!/usr/bin/env bash
# npm run test:fast — the developer's inner loop: no setup, no release build.
# Native core tests, a dev (unoptimized, no wasm-opt) wasm build into web/pkg,
# then the Node API suite and the hardening suites that do not depend on an
# optimized build: not the soak and random programs (slow), nor the deep
# recursion cases (a dev build's larger stack frames overflow sooner, as a
# trap). npm test runs everything. Ends with "N passed, M failed".
#   FAST_NO_WASM=1  skip the wasm build (JS-only changes: copies crate/js/hookgrad.js)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
source scripts/suites.sh

run rust-core cargo cargo test -p hookgrad-core
if [ -n "${FAST_NO_WASM:-}" ] && [ -d web/pkg ]; then
  cp crate/js/hookgrad.js crate/js/hookgrad.d.ts web/pkg/
else
  run wasm-dev-build check env HOOKGRAD_PROFILE=--dev bash scripts/build-wasm.sh
fi
HARDENING=$(ls tests/hardening/*.test.mjs | grep -v -e soak -e random-programs -e hostile-hook -e deep-graphs)
run node-api node node --test --test-reporter=tap tests/node/
# shellcheck disable=SC2086
run hardening node node --test --test-reporter=tap $HARDENING

finish
