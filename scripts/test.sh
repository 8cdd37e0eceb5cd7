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
  # The compiler keeps the layers (hookgrad-core cannot name what it does not
  # depend on); this checks the dependency tree itself stays free of them.
  local tree
  tree=$(cargo tree -p hookgrad-core --edges normal,build --prefix none --format '{p}') || return 1
  if echo "$tree" | grep -E '^(wasm-bindgen|js-sys|web-sys)'; then return 1; fi
}

run rust-core cargo cargo test --workspace
run rust-fmt check cargo fmt --all -- --check
run rust-clippy check cargo clippy --workspace --all-targets -- -D warnings
run rust-clippy-wasm check cargo clippy -p hookgrad --target wasm32-unknown-unknown --all-targets --features serde-reference -- -D warnings
run core-purity check core_is_pure
# serde-reference: the browser tests read graph()/trace() without the facade (crate/wasm/src/inspect.rs).
run wasm-browser cargo wasm-pack test --headless --chrome crate/wasm --features serde-reference --test browser
[ -d tests/node ] && run node-api node node --test --test-reporter=tap tests/node/
[ -d tests/hardening ] && run hardening node node --test --test-reporter=tap tests/hardening/
[ -d tests/web-unit ] && run web-unit node node --test --test-reporter=tap tests/web-unit/
# The package's TypeScript types: typed examples compile (tsc --noEmit), and
# the names they declare match the engine's exports.
# The Python mode: the shim's printing and random generator against PyTorch's
# recorded output (CPython, no torch needed), then the runtime, the CLI and
# the corpus of PyTorch programs through `hookgrad run` (tests/python/README.md).
run python-shim pyunit python3 -m unittest discover -s tests/python -p 'test_*.py'
run python-mode node node --test --test-concurrency=1 --test-reporter=tap tests/python/
run types check tsc --noEmit -p tests/types
run types-runtime node node --test --test-reporter=tap tests/types/
[ -d tests/e2e ] && run e2e node node --test --test-concurrency=1 --test-reporter=tap tests/e2e/

finish
