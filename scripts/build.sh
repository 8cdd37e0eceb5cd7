#!/usr/bin/env bash
# npm run build: the engine (web/pkg) then, when present, the playground site.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-wasm.sh
if [ -f scripts/build-web.sh ]; then bash scripts/build-web.sh; fi
