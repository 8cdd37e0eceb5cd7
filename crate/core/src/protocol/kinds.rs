//! The fixed sets of names records use, and a source location.

use crate::ids::HandleId;

names! {
    /// Every hook kind a trace event or graph row names.
    pub enum HookKind {
        Tensor = "tensor",
        RetainGrad = "retain-grad",
        NodePre = "node-pre",
        NodePost = "node-post",
        PostAccumulate = "post-accumulate",
        ModulePre = "module-pre",
        ModuleForward = "module-forward",
        ModuleBackward = "module-backward",
        ModuleFullBackward = "module-full-backward",
        ModuleFullBackwardPre = "module-full-backward-pre",
        /// `saved_tensors_hooks` pack / unpack and `register_multi_grad_hook`.
        Pack = "pack",
        Unpack = "unpack",
        MultiGrad = "multi-grad",
    }
}

names! {
    /// Where a module call is (`module` events).
    pub enum ModulePhase {
        PreHook = "pre-hook",
        Forward = "forward",
        Hook = "hook",
        End = "end",
    }
}

names! {
    /// A `log` event's console method (`info` and `debug` print as `log`).
    pub enum LogLevel {
        Log = "log",
        Warn = "warn",
        Error = "error",
    }
}

impl LogLevel {
    pub fn parse(s: &str) -> Option<LogLevel> {
        match s {
            "log" | "info" | "debug" => Some(LogLevel::Log),
            "warn" => Some(LogLevel::Warn),
            "error" => Some(LogLevel::Error),
            _ => None,
        }
    }
}

record! {
    /// Where the user's code registered a hook (1-based), when known.
    pub struct SourceLoc {
        pub line: u32,
        pub column: u32,
    }
}

impl Copy for SourceLoc {}

impl PartialEq for SourceLoc {
    fn eq(&self, other: &Self) -> bool {
        (self.line, self.column) == (other.line, other.column)
    }
}

impl Eq for SourceLoc {}

record! {
    /// The user hook whose exception ended a call (an `error` event's
    /// `hook`, `hookKind`, `hookName`): the UI points at it by its handle
    /// instead of reading the message.
    pub struct FailedHook {
        /// The handle `register*()` returned (= the `handle` of its graph
        /// row and of its earlier `hook` events).
        pub handle as "hook": HandleId,
        pub kind as "hookKind": HookKind,
        /// The hook function's name ('' for an anonymous function).
        pub name as "hookName": String,
    }
}

impl PartialEq for FailedHook {
    fn eq(&self, other: &Self) -> bool {
        (self.handle, self.kind, &self.name) == (other.handle, other.kind, &other.name)
    }
}
