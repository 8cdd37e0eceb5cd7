#!/usr/bin/env bash
# npm run fuzz: the long form of the hardening suites (tests/hardening/, fuzz/).
#
#   FUZZ_PROGRAMS   random programs vs the float64 reference (default 5000)
#   FUZZ_SEED       first seed (default 1: seeds 1..FUZZ_PROGRAMS, reproducible;
#                   any other value explores new programs)
#   SOAK_SCALE      memory-soak cycles multiplier (default 5: 3,000-4,000 cycles per scenario)
#   DEEP_N          deep-graph chain length (default 200000)
#   FUZZ_NATIVE     native harness programs, no libFuzzer (default 200000)
#   FUZZ_SECONDS    libFuzzer time budget when cargo-fuzz + nightly exist (default 60; 0 skips)
#
# Ends with one plain line "N passed, M failed" like npm test.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
PROGRAMS="${FUZZ_PROGRAMS:-5000}"
SEED="${FUZZ_SEED:-1}"
NATIVE="${FUZZ_NATIVE:-200000}"
SECONDS_BUDGET="${FUZZ_SECONDS:-60}"
source scripts/suites.sh

[ -f web/pkg/hookgrad.js ] && [ -f web/pkg/hookgrad_bg.wasm ] || bash scripts/build-wasm.sh || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

run random-programs node env HARDENING_PROGRAMS="$PROGRAMS" HARDENING_SEED="$SEED" \
  node --test --test-reporter=tap tests/hardening/random-programs.test.mjs
run soak node env SOAK_SCALE="${SOAK_SCALE:-5}" node --test --test-reporter=tap tests/hardening/soak.test.mjs
run deep-graphs node env DEEP_N="${DEEP_N:-200000}" node --test --test-reporter=tap tests/hardening/deep-graphs.test.mjs
run catalogue node node --test --test-reporter=tap tests/hardening/bad-input.test.mjs tests/hardening/hostile-hooks.test.mjs tests/hardening/hostile-hook-values.test.mjs

# Native side: the same byte-program harness with and without libFuzzer.
native_replay() {
  cargo run --quiet --profile native -p hookgrad-fuzz --bin replay -- "$NATIVE" "$SEED"
}
run native-replay check native_replay

if [ "$SECONDS_BUDGET" != "0" ] && command -v cargo-fuzz >/dev/null 2>&1 && rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  libfuzzer() {
    cargo +nightly fuzz run graph_builder --features libfuzzer -- -max_total_time="$SECONDS_BUDGET" -rss_limit_mb=2048 2>&1 | grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)|NEW_FUNC' | tail -25
    return "${PIPESTATUS[0]}"
  }
  run libfuzzer check libfuzzer
else
  echo "=== libfuzzer: skipped (needs cargo-fuzz and a nightly toolchain; install: cargo install cargo-fuzz && rustup toolchain install nightly)"
fi

finish
