#!/usr/bin/env bash
# Regenerates crate/js/records.js (the graph()/trace() tape decoder) and
# crate/js/protocol.d.ts (their TypeScript types) from the one declaration of
# the records, crate/core/src/protocol/. `cargo test -p hookgrad-core` fails
# while they are stale (protocol::tests::the_generated_js_files_are_current).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
HOOKGRAD_WRITE_PROTOCOL=1 cargo test -q -p hookgrad-core --lib protocol::tests::the_generated_js_files_are_current
echo "[gen-protocol] crate/js/records.js, crate/js/protocol.d.ts: current"
