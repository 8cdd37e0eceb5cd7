#!/usr/bin/env bash
# npm test: set up, build, run every suite, and end with one plain line
# "N passed, M failed" summing them all (what CI reads).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
LOGDIR="$(mktemp -d)"
PASSED=0; FAILED=0; BROKEN=()

bash scripts/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }
bash scripts/build.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

# run NAME KIND CMD...: KIND is how to count (cargo | node | check).
run() {
  local name="$1" kind="$2"; shift 2
  local log="$LOGDIR/$name.log"
  echo "=== $name: $*"
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} p=0 f=0
  case "$kind" in
    cargo)
      p=$(grep -Eo 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END {print s+0}')
      f=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}') ;;
    node)
      p=$(grep -E '^# pass [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
      f=$(grep -E '^# fail [0-9]+' "$log" | awk '{s+=$3} END {print s+0}') ;;
    check)
      if [ "$rc" -eq 0 ]; then p=1; else f=1; fi ;;
  esac
  # A suite that exits non-zero without a counted failure still counts as one.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  [ "$f" -gt 0 ] && BROKEN+=("$name")
  echo "=== $name: $p passed, $f failed"
}

core_is_pure() {
  # The engine must not use wasm-bindgen/js-sys (comments aside): only
  # crate/src/bindings may. Prints offending lines; fails if there are any.
  local hits
  hits=$(grep -rnE 'wasm_bindgen|js_sys' crate/src --include='*.rs' | grep -v '^crate/src/bindings/' | grep -vE '^[^:]+:[0-9]+:\s*//')
  [ -z "$hits" ] || { echo "$hits"; return 1; }
}

run rust-core cargo cargo test -p hookgrad
run rust-fmt check cargo fmt --all -- --check
run rust-clippy check cargo clippy -p hookgrad --all-targets -- -D warnings
run rust-clippy-wasm check cargo clippy -p hookgrad --target wasm32-unknown-unknown -- -D warnings
run core-purity check core_is_pure
run wasm-browser cargo wasm-pack test --headless --chrome crate --test browser
[ -d tests/node ] && run node-api node node --test --test-reporter=tap tests/node/
[ -d tests/hardening ] && run hardening node node --test --test-reporter=tap tests/hardening/
[ -d tests/web-unit ] && run web-unit node node --test --test-reporter=tap tests/web-unit/
[ -d tests/e2e ] && run e2e node node --test --test-concurrency=1 --test-reporter=tap tests/e2e/

rm -rf "$LOGDIR"
[ ${#BROKEN[@]} -gt 0 ] && echo "failing suites: ${BROKEN[*]}"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
