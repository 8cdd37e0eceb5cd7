//! `trace()`'s events: one step of a run each, in execution order.

use super::kinds::{FailedHook, HookKind, LogLevel, ModulePhase};
use super::values::GradList;
use crate::ids::{HandleId, ModuleId, NodeId, TensorId};
use crate::tensor::Array;

value_choice! {
    /// A hook's value: one gradient (tensor hooks) or a list (node and module
    /// hooks, PyTorch's tuples).
    pub enum HookValue {
        One(Option<Array>),
        Many(Vec<Option<Array>>),
    }
}

field_choice! {
    /// What a hook event ran on: `tensor`, `node`, or `module` + `moduleId`
    /// (+ `node`, the backward node a module backward hook ran on).
    pub enum HookTarget {
        /// A hook on a tensor (`tensor`, `retain-grad`, `post-accumulate`).
        Tensor(
            tensor: TensorId,
            /// With a hook on a tensor (`tensor`, `retain-grad`,
            /// `post-accumulate`): the tensor's name when the hook ran, or
            /// null. Names a tensor that `hg.tidy` released before `graph()`
            /// was taken.
            tensor_name as "tensorName": Option<String>
        ),
        Node(node: NodeId),
        Module(
            module_id as "moduleId": ModuleId,
            module: String,
            #[json(omit_none)]
            node: Option<NodeId>
        ),
        /// A saved-tensor hook (pack / unpack): the saved tensor and the node
        /// that saved it.
        Saved(
            /// The saved tensor (pack / unpack, with `node`: the node that saved it).
            tensor: TensorId,
            node: NodeId
        ),
        /// A multi-grad hook: the tensors it watches.
        Tensors(
            /// A multi-grad hook's tensors.
            tensors: Vec<TensorId>
        ),
    }
}

tagged! {
    /// One step of `hg.trace(fn)`, in execution order.
    pub enum Event as TraceEvent, tag "type" {
        /// An op built a backward node.
        Op "op" as OpEvent {
            node: NodeId,
            name: &'static str,
            inputs: Vec<TensorId>,
            output: TensorId,
        },
        /// A module call reached `phase`. `path`: the module's name in the
        /// module whose forward called it, as that module's
        /// `named_modules()` gives it (`encoder`, `layers.0`); absent for a
        /// module the program called itself.
        Module "module" as ModuleEvent {
            module: String,
            module_id as "moduleId": ModuleId,
            phase: ModulePhase,
            #[json(omit_none)]
            path: Option<String>,
        },
        /// A backward node ran: the gradients it received and computed.
        Node "node" as NodeEvent {
            node: NodeId,
            name: &'static str,
            grad_outputs as "gradOutputs": GradList,
            grad_inputs as "gradInputs": GradList,
        },
        /// A hook ran; recorded after it returned, with what it changed.
        /// Exactly one target: `tensor`, `node`, `tensors`, or `module` +
        /// `moduleId` (+ `node`, the backward node a module backward hook
        /// ran on).
        Hook "hook" as HookEvent {
            kind: HookKind,
            handle: HandleId,
            /// The hook function's name, as graph()'s HookInfo gives it ('' for
            /// an anonymous function; 'retain_grad'; pack / unpack: that
            /// function's). Names a hook that was removed, or whose tensor
            /// hg.tidy released.
            name: String,
            #[json(flatten)]
            target: HookTarget,
            before: HookValue,
            after: HookValue,
        },
        /// AccumulateGrad wrote `.grad` (the value now in it).
        Accumulate "accumulate" as AccumulateEvent {
            tensor: TensorId,
            grad: Array,
        },
        /// The program assigned `.grad` (`t.grad = …`, `m.zeroGrad()`): `grad`
        /// is the value now in it, null for None (PyTorch's `None`).
        /// Backward's own writes are `accumulate` events.
        GradSet "grad-set" as GradSetEvent {
            tensor: TensorId,
            grad: Option<Array>,
        },
        Warning "warning" as WarningEvent {
            message: String,
        },
        /// A call failed. `node`: the backward node that was running;
        /// `hook`, `hookKind`, `hookName`: the user hook whose exception it
        /// was (absent when the failure was not a hook's).
        Error "error" as ErrorEvent {
            message: String,
            #[json(omit_none)]
            node: Option<NodeId>,
            #[json(flatten)]
            hook: Option<FailedHook>,
        },
        /// A console line of the program (`hg.recordLog`). `hook`: the handle
        /// of the user hook that printed it (the line follows that hook's
        /// event), else null.
        Log "log" as LogEvent {
            level: LogLevel,
            text: String,
            hook: Option<HandleId>,
        },
    }
}
