#!/usr/bin/env bash
# npm run build: set up what is missing, then the engine (web/pkg, an npm-ready
# package) and the site (web/dist, with the package in web/dist/pkg).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-wasm.sh
bash scripts/build-web.sh
