#!/usr/bin/env bash
# npm test: set up, build, run every suite, and end with one plain line
# "N passed, M failed" summing them all (what CI reads).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
source scripts/suites.sh

bash scripts/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }
bash scripts/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

core_is_pure() {
  # The engine must not use wasm-bindgen/js-sys (comments aside): only
  # crate/src/bindings may. Prints offending lines; fails if there are any.
  local hits
  hits=$(grep -rnE 'wasm_bindgen|js_sys' crate/src --include='*.rs' | grep -v '^crate/src/bindings/' | grep -vE '^[^:]+:[0-9]+:\s*//')
  [ -z "$hits" ] || { echo "$hits"; return 1; }
}

run rust-core cargo cargo test -p hookgrad -p hookgrad-kernel
run rust-fmt check cargo fmt --all -- --check
run rust-clippy check cargo clippy -p hookgrad -p hookgrad-kernel --all-targets -- -D warnings
run rust-clippy-wasm check cargo clippy -p hookgrad --target wasm32-unknown-unknown -- -D warnings
run core-purity check core_is_pure
run wasm-browser cargo wasm-pack test --headless --chrome crate --test browser
[ -d tests/node ] && run node-api node node --test --test-reporter=tap tests/node/
[ -d tests/hardening ] && run hardening node node --test --test-reporter=tap tests/hardening/
[ -d tests/web-unit ] && run web-unit node node --test --test-reporter=tap tests/web-unit/
[ -d tests/e2e ] && run e2e node node --test --test-concurrency=1 --test-reporter=tap tests/e2e/

finish
