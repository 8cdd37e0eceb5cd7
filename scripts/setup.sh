#!/usr/bin/env bash
# Installs everything the build and the tests need, skipping what is present.
# Idempotent: seconds when the machine already has it all. Every npm script
# runs it first. What it installs and why: README.md, section "Set-up".
set -euo pipefail
cd "$(dirname "$0")/.."

# The CLI must be the wasm-bindgen crate's locked version (Cargo.lock).
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, "", $0); print; exit }' Cargo.lock)
log() { printf '[setup] %s\n' "$*" >&2; }
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  log "adding Rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# The release wasm's pinned nightly, with the std sources that -Z build-std
# compiles (scripts/wasm-toolchain.sh says why). ~100 MB, about a minute.
source scripts/wasm-toolchain.sh
if ! rustup toolchain list | grep -q "^${WASM_NIGHTLY}" || \
   ! [ -d "$(rustup run "$WASM_NIGHTLY" rustc --print sysroot)/lib/rustlib/src/rust/library/std" ] || \
   ! rustup target list --installed --toolchain "$WASM_NIGHTLY" 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  log "installing Rust ${WASM_NIGHTLY} (minimal, rust-src, wasm32) for the release wasm"
  rustup toolchain install "$WASM_NIGHTLY" --profile minimal -c rust-src -t wasm32-unknown-unknown
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  log "installing Debian chromium + chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# The CLI must match the crate's pinned wasm-bindgen exactly. No --locked: its
# lockfile wants a webpki-roots newer than the registry serves.
if ! wasm-bindgen --version 2>/dev/null | grep -q " ${WASM_BINDGEN_VERSION}\$"; then
  log "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION} (about 3 minutes)"
  cargo install -q wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}"
fi

# The npm wasm-pack package downloads a binary (refused here): build from crates.io.
if ! command -v wasm-pack >/dev/null; then
  log "installing wasm-pack (about 3 minutes)"
  cargo install -q wasm-pack --locked
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm packages"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
log "ready"
