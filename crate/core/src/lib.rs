//! hookgrad: a PyTorch-faithful autograd engine with hooks.
//!
//! The engine (`tensor`, `ops`, `node`, `engine`, `hooks`, `module`,
//! `trace`) is plain Rust, tested natively with `cargo test`. It has no
//! wasm-bindgen / js-sys in its dependency tree: the binding crate
//! (`crate/wasm`, package `hookgrad`) converts JS values to core types and back,
//! and the compiler keeps it that way.

// The release wasm (a pinned nightly, opt-level "z" for size) compiles the
// hot paths of a scalar graph for speed: `#[optimize(speed)]`, see build.rs.
#![cfg_attr(hookgrad_nightly, feature(optimize_attribute))]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub(crate) mod accumulate;
pub mod array;
pub(crate) mod call_node;
pub(crate) mod cascade_sum;
pub mod context;
pub mod custom_function;
pub mod deferred;
pub mod engine;
pub mod error;
pub mod graph;
pub(crate) mod graph_source;
pub mod graph_task;
pub mod hooks;
pub mod ids;
pub(crate) mod input_buffer;
pub mod layout;
pub mod live;
pub mod module;
pub mod multi_grad;
pub mod node;
pub mod ops;
pub mod per_thread;
pub mod protocol;
pub mod ready_queue;
pub mod repr;
pub mod saved;
pub(crate) mod scalar_backward;
pub mod shape;
pub mod small;
pub mod tensor;
pub mod tensor_api;
pub mod trace;
pub mod view;

#[cfg(test)]
mod custom_function_tests;
#[cfg(test)]
mod deferred_tests;
#[cfg(test)]
mod double_backward_tests;
#[cfg(test)]
mod fixture_expr;
#[cfg(test)]
mod float_bits_tests;
#[cfg(test)]
mod inplace_hook_tests;
#[cfg(test)]
mod lifetime_tests;
#[cfg(test)]
mod module_scenario_tests;
#[cfg(test)]
mod pytorch_fixture_tests;
#[cfg(test)]
mod scalar_tests;
#[cfg(test)]
mod scenario_tests;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod trace_order_tests;

pub use error::{Error, Result};
pub use ops::Operand;
pub use tensor::{Array, Tensor, TensorOptions};
