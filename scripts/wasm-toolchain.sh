# The toolchain of the release wasm (sourced by setup.sh and build-wasm.sh).
# A dated nightly, because the size levers below are unstable; everything
# else (native tests, clippy, the bench's native build, the dev wasm) stays
# on stable. Changing the date: install it with setup.sh, rebuild, and
# compare W5 (size) and W1 (speed) before and after (bench/PROFILE.md).
WASM_NIGHTLY=nightly-2026-05-20
#
# Measured (issue 10, W5/W1): engine wasm + glue as bench/lib/sizes.mjs
# counts, gzip -9, main at f852f92: 234,814 bytes (stable) → 201,630 (this
# nightly; with the option reader of options.rs). Cost: W1 +4.8%
# instructions per step (callgrind over node, TurboFan only: 332 M → 348 M),
# from std's code compiled at opt-level "z"; rebuilding compiler_builtins and
# dlmalloc at opt-level 3 did not win it back (within the ±1.5% noise), nor
# does optimize_for_size cost any (338.7 M with it, 340.7 M without).
# Tried and not taken: wasm-opt -Oz --converge (−1.5 KB, +9% W1
# instructions), no multivalue (−1.4 KB, the glue grows), no reference-types
# (−2.5 KB, the glue grows and every JsValue goes through its heap table).
#
# Issue 10, W5, fourth pass (engine wasm + glue, gzip -9 as bench/lib/sizes.mjs
# counts; 200.1 KB at af263e9): minified package JS (scripts/minify-pkg.mjs,
# −7.6 KB), serde-wasm-bindgen only in the tests' serde-reference build
# (−9.0 KB), cat/stack, softmax, mse_loss and randn without ndarray's generic
# concatenate / operators / from_shape_fn (−3.1 KB), one in-place op body
# instead of five monomorphized ones (−1.9 KB), wasm-opt
# --reorder-functions-by-name (crate/wasm/Cargo.toml, −1.5 KB): −23.1 KB in
# all, W1/W3 unchanged (interleaved A/B within ±2%).
# Measured and not taken: fewer exports — routing 9 unary methods through
# one generic export saved 18 B gzip of wasm and 74 B of glue (the
# per-export wrappers are near-identical, gzip already shares them);
# -Z inline-mir=no (0), -C llvm-args=-inline-threshold=0 (−0.2 KB); wasm-opt
# -Os/-Oz/--converge/--merge-similar-functions after -O3 (≤ 1 KB, -Oz slows
# W1); --minify-imports-and-exports (−1.4 KB, but the glue and the facade
# call exports by name). What is left is the engine itself: hookgrad-core
# ~70 KB gzip of code (engine::run_backward alone 11 KB), ndarray ~13 KB,
# the binding ~16 KB plus its export shims ~25 KB (core code inlined there).
#
# Issue 10, W5, fifth pass (187,061 → 172,261 B as sizes.mjs counts; the
# levers: bench/PROFILE.md). Toolchain levers taken: wasm-opt -O3 twice
# (crate/wasm/Cargo.toml, −962 B), -Z location-detail=none (below, −651 B).
# Measured and not taken (gzip of the wasm against -O3 -O3, same input):
# -O3 -Os (+52 B), -O3 -O3 -Os (+176 B), -Os -O3 (+279 B), a third -O3,
# --converge, --gufa-optimizing or --code-folding (±10 B). -Z fmt-debug=none
# not tried: no Debug formatting is left in the release wasm but ndarray's
# ErrorKind (49 B), and the texts it would blank are internal errors'.

# -Z build-std: std, alloc and core rebuilt with the release profile
#   (opt-level "z", LTO with the engine) instead of the prebuilt opt-level 3.
# optimize_for_size: std's small algorithms (e.g. sort) instead of its fast
#   ones; they are off the engine's hot paths.
# -C panic=immediate-abort: a panic is a bare `unreachable` trap, without the
#   panic machinery and its formatted message and location. The release
#   build already aborted (traps) on panic (profile panic = "abort"), and the
#   code has no panics by lint (clippy unwrap_used / expect_used / panic
#   denied; faults are Error::Internal), so what this loses is only the
#   message of a panic that must never happen.
# -Z location-detail=none: no file/line/column in the panic Locations that
#   #[track_caller] code keeps (a panic is a bare trap here anyway, see
#   above; nothing prints a Location): -0.65 KB gzip, file paths of std.
# +simd128 repeats .cargo/config.toml, which RUSTFLAGS overrides.
WASM_NIGHTLY_RUSTFLAGS="-C target-feature=+simd128 -Z unstable-options -C panic=immediate-abort -Z location-detail=none"
WASM_NIGHTLY_CARGO_ARGS=(-Z build-std=std,panic_abort -Z build-std-features=optimize_for_size)
