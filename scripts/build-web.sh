#!/usr/bin/env bash
# Builds the playground (web/) into web/dist/ and copies the engine package
# (web/pkg, from `npm run build:wasm`) next to it. Called by `npm run build`.
set -euo pipefail
cd "$(dirname "$0")/.."
node_modules/.bin/vite build --config web/vite.config.js --logLevel warn
cp web/hookgrad-element.js web/dist/hookgrad-element.js
if [ -f web/pkg/hookgrad.js ]; then
  rm -rf web/dist/pkg && mkdir -p web/dist/pkg
  cp web/pkg/*.js web/pkg/*.wasm web/dist/pkg/
  [ -f web/pkg/package.json ] && cp web/pkg/package.json web/dist/pkg/ || true
else
  echo "[build-web] warning: web/pkg/hookgrad.js is missing — run 'npm run build:wasm' first; the page will say the engine is not built." >&2
fi
echo "[build-web] site in web/dist/" >&2
