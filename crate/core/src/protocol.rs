//! The one typed seam between the engine and the playground: every record
//! `graph()` and `trace()` hand out, declared once. Each declaration (in
//! `kinds`, `records`, `events`) makes the Rust type the engine builds, its
//! JSON, its tape writing, and the description from which `crate/js/records.js`
//! (the JS decoder) and `crate/js/protocol.d.ts` (the TypeScript types) are
//! generated (`schema` says how; `scripts/gen-protocol.sh` regenerates them,
//! and a test fails when they are stale). Field names are the contract's
//! (`shared/js-api.md`, "Inspection for the playground"); fields are only
//! ever added.
//!
//! Values are f32 widened to f64 (what `t.item()` returns).

#[macro_use]
pub mod schema;
pub mod events;
pub mod gen_js;
pub mod gen_ts;
pub mod kinds;
pub mod records;
pub mod tape;
pub mod values;

#[cfg(test)]
mod tests;

pub use events::{Event, HookTarget, HookValue};
pub use kinds::{FailedHook, HookKind, LogLevel, ModulePhase, SourceLoc};
pub use records::{GraphInfo, HookInfo, NextEdge, NodeInfo, TensorInfo, TraceRun};
pub use tape::Tape;
pub use values::{serialize_numbers, to_json, GradList, Json};

use schema::{Decl, Declared};

/// Every declared type, in the order the generated files list them.
pub fn declarations() -> Vec<Decl> {
    vec![
        HookKind::decl(),
        ModulePhase::decl(),
        LogLevel::decl(),
        SourceLoc::decl(),
        HookInfo::decl(),
        TensorInfo::decl(),
        NextEdge::decl(),
        NodeInfo::decl(),
        GraphInfo::decl(),
        HookValue::decl(),
        HookTarget::decl(),
        FailedHook::decl(),
        Event::decl(),
        TraceRun::decl(),
    ]
}
