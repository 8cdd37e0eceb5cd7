//! Sets `cfg(hookgrad_nightly)` when the compiler is a nightly (the release
//! wasm's pinned toolchain, scripts/wasm-toolchain.sh), so the hot functions
//! can carry `#[optimize(speed)]` there (this crate and the binding, which
//! builds with this file too) while stable builds (native tests,
//! clippy, bench/native, the dev wasm) compile them as before.
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(hookgrad_nightly)");
    println!("cargo::rerun-if-env-changed=RUSTC");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let nightly = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("-nightly"))
        .unwrap_or(false);
    if nightly {
        println!("cargo::rustc-cfg=hookgrad_nightly");
    }
}
