#!/usr/bin/env bash
# Builds the engine to web/pkg/: wasm-bindgen --target web output, renamed to
# hookgrad_core.js, behind a small facade web/pkg/hookgrad.js (variadic
# Module.call, hg.nn.Linear) — the entry the contract names.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"   # npm binaryen's wasm-opt first
PROFILE="${HOOKGRAD_PROFILE:---release}"
wasm-pack build crate --target web $PROFILE --out-dir ../web/pkg --out-name hookgrad --no-pack >/dev/null 2>&1 || \
  wasm-pack build crate --target web $PROFILE --out-dir ../web/pkg --out-name hookgrad --no-pack
cd web/pkg
mv -f hookgrad.js hookgrad_core.js
mv -f hookgrad.d.ts hookgrad_core.d.ts
rm -f .gitignore
cp ../../crate/js/hookgrad.js hookgrad.js
cp ../../crate/js/hookgrad.d.ts hookgrad.d.ts
echo "[build] web/pkg: $(wc -c < hookgrad_bg.wasm) bytes wasm, $(gzip -9c hookgrad_bg.wasm | wc -c) gzip" >&2
