#!/usr/bin/env bash
# Builds the site (web/) into web/dist/ and copies the engine package (web/pkg,
# from `npm run build:wasm`) next to it. Called by `npm run build`. Every URL
# in the site is relative (Vite base './'), so web/dist works from any
# sub-path (https://host/hookgrad/).
set -euo pipefail
cd "$(dirname "$0")/.."
node_modules/.bin/vite build --config web/vite.config.js --logLevel warn
cp web/hookgrad-element.js web/dist/hookgrad-element.js
if [ -f web/pkg/hookgrad.js ]; then
  rm -rf web/dist/pkg && mkdir -p web/dist/pkg
  # The whole package (types and package.json too): pages import it as plain
  # ESM from ./pkg/, and it can be fetched from the site as it is.
  cp web/pkg/*.js web/pkg/*.wasm web/pkg/*.d.ts web/dist/pkg/
  for f in package.json README.md; do [ -f "web/pkg/$f" ] && cp "web/pkg/$f" web/dist/pkg/; done
  # Pyodide, served by the site itself (never a CDN): where hookgrad/python
  # looks for it (pkg/pyodide/, beside python.js) and where the pages' sandbox
  # fetches it from when a reader picks Python. Only the runtime's files: the
  # pages load no Pyodide package, and the demo consoles are not ours to serve.
  if [ -f node_modules/pyodide/pyodide.mjs ]; then
    mkdir -p web/dist/pkg/pyodide
    cp node_modules/pyodide/{pyodide.mjs,pyodide.asm.mjs,pyodide.asm.wasm,python_stdlib.zip,pyodide-lock.json,package.json} web/dist/pkg/pyodide/
  else
    echo "[build-web] warning: node_modules/pyodide is missing (npm ci): the pages cannot run Python." >&2
  fi
else
  echo "[build-web] warning: web/pkg/hookgrad.js is missing — run 'npm run build:wasm' first; the page will say the engine is not built." >&2
fi
echo "[build-web] site in web/dist/" >&2
