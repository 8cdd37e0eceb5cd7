//! `nn.Module`: a module's identity (id, name), its forward and its hook
//! lists. The call with hooks is call.rs; hook registration, registry.rs;
//! parameters and children, tree.rs; the user code's traits, traits.rs.

pub mod backward_hook;
mod call;
pub mod linear;
mod registry;
pub mod sequential;
mod traits;
mod tree;
pub mod value;

use std::cell::RefCell;
use std::rc::Rc;

use crate::ids::ModuleId;
use crate::tensor::Tensor;
pub use registry::{
    global, ForwardHookEntry, ModuleHooks, PreHookEntry, MIXED_BACKWARD_HOOKS_ERROR,
};
pub use traits::{
    ForwardHook, ForwardPreHook, ModuleBackwardHook, ModuleBackwardPreHook, ModuleForward,
};
pub use value::Value;

pub struct ModuleImpl {
    id: ModuleId,
    name: RefCell<String>,
    forward: Rc<dyn ModuleForward>,
    hooks: ModuleHooks,
    parameters: RefCell<Vec<(String, Tensor)>>,
    children: RefCell<Vec<(String, Module)>>,
}

#[derive(Clone)]
pub struct Module(Rc<ModuleImpl>);

impl Module {
    pub fn new(name: impl Into<String>, forward: Rc<dyn ModuleForward>) -> Module {
        Module(Rc::new(ModuleImpl {
            id: ModuleId::next(),
            name: RefCell::new(name.into()),
            forward,
            hooks: ModuleHooks::default(),
            parameters: RefCell::new(Vec::new()),
            children: RefCell::new(Vec::new()),
        }))
    }

    pub fn id(&self) -> ModuleId {
        self.0.id
    }
    pub fn name(&self) -> String {
        self.0
            .name
            .try_borrow()
            .map(|n| n.clone())
            .unwrap_or_else(|_| crate::error::fault_default("a module's name is busy"))
    }
    pub fn ptr_eq(&self, other: &Module) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    pub fn hooks(&self) -> &ModuleHooks {
        &self.0.hooks
    }
}
