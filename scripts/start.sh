#!/usr/bin/env bash
# npm start: set up what is missing, build, serve the playground on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs
