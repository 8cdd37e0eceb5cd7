#!/usr/bin/env bash
# Builds the engine to web/pkg/: wasm-bindgen --target web output, renamed to
# hookgrad_core.js, behind a small facade web/pkg/hookgrad.js (variadic
# Module.call, fast paths, hg.nn.Linear) — the entry the contract names.
# Builds into a temporary folder and swaps it in, so web/pkg is never seen
# half-built (without the facade) by anything reading it meanwhile. Then
# scripts/build-pkg.mjs makes it an npm package (package.json, README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"   # npm binaryen's wasm-opt first
# Without npm's binaryen, wasm-pack would try to download wasm-opt (refused
# on machines like this one): say what to run instead.
if ! command -v wasm-opt >/dev/null || ! wasm-opt --version 2>/dev/null | grep -qE 'version (1[2-9][0-9]|[2-9][0-9]{2})'; then
  echo "[build] no recent wasm-opt (npm binaryen) on PATH: run 'npm run setup' (or 'npm ci') first" >&2; exit 1
fi
PROFILE="${HOOKGRAD_PROFILE:---release}"
# HOOKGRAD_OUT (default web/pkg) and HOOKGRAD_FEATURES (cargo features of
# crate/wasm): tests/node/tape.test.mjs builds its serde-reference package
# this way, into target/ (never web/pkg).
OUT="${HOOKGRAD_OUT:-web/pkg}"
CARGO_EXTRA=()
if [ -n "${HOOKGRAD_FEATURES:-}" ]; then CARGO_EXTRA+=(--features "$HOOKGRAD_FEATURES"); fi
# The release wasm is built for size by a pinned nightly (why and how:
# scripts/wasm-toolchain.sh), in its own target folder so that it and the
# stable builds (tests, clippy, the dev wasm) do not rebuild each other.
if [ "$PROFILE" = --release ]; then
  source scripts/wasm-toolchain.sh
  if ! rustup toolchain list | grep -q "^${WASM_NIGHTLY}"; then
    echo "[build] the release wasm needs Rust ${WASM_NIGHTLY}: run 'npm run setup' (scripts/setup.sh) first" >&2; exit 1
  fi
  export RUSTUP_TOOLCHAIN="$WASM_NIGHTLY" RUSTFLAGS="$WASM_NIGHTLY_RUSTFLAGS" CARGO_TARGET_DIR="$PWD/target/wasm-release"
  CARGO_EXTRA+=("${WASM_NIGHTLY_CARGO_ARGS[@]}")
fi
if [ ${#CARGO_EXTRA[@]} -ne 0 ]; then CARGO_EXTRA=(-- "${CARGO_EXTRA[@]}"); fi
TMP="$(dirname "$OUT")/.$(basename "$OUT")-build"
OLD="$(dirname "$OUT")/.$(basename "$OUT")-old"
rm -rf "$TMP"
wasm-pack build crate/wasm --target web $PROFILE --out-dir "../../$TMP" --out-name hookgrad --no-pack "${CARGO_EXTRA[@]}" >/dev/null 2>&1 || \
  wasm-pack build crate/wasm --target web $PROFILE --out-dir "../../$TMP" --out-name hookgrad --no-pack "${CARGO_EXTRA[@]}"
mv -f "$TMP/hookgrad.js" "$TMP/hookgrad_core.js"
mv -f "$TMP/hookgrad.d.ts" "$TMP/hookgrad_core.d.ts"
rm -f "$TMP/.gitignore"
cp crate/js/*.js crate/js/*.d.ts "$TMP/"
node scripts/bundle-python.mjs "$TMP"   # the Python mode's shim, after cp: never minified apart
mkdir -p "$TMP/bin" && cp crate/js/bin/*.mjs "$TMP/bin/"
# The release package's JS minified (issue 10, W5; scripts/minify-pkg.mjs).
if [ "$PROFILE" = --release ]; then node scripts/minify-pkg.mjs "$TMP"; fi
node scripts/build-pkg.mjs "$TMP"
rm -rf "$OLD"
if [ -d "$OUT" ]; then mv "$OUT" "$OLD"; fi
mv "$TMP" "$OUT"
rm -rf "$OLD"
echo "[build] $OUT: $(wc -c < "$OUT/hookgrad_bg.wasm") bytes wasm, $(gzip -9c "$OUT/hookgrad_bg.wasm" | wc -c) gzip; JS $(cat "$OUT"/*.js | wc -c) bytes, $(for f in "$OUT"/*.js; do gzip -9c "$f" | wc -c; done | awk '{s += $1} END {print s}') gzip" >&2
