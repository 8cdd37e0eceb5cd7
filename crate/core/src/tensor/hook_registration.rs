//! Registering hooks on a tensor (`register_hook`, `retain_grad`,
//! `register_post_accumulate_grad_hook`) with PyTorch's errors, and handing a
//! non-leaf's hook list to its grad_fn; running them is the engine's.

use std::rc::Rc;

use super::{Tensor, TensorHookList};
use crate::error::{fault_default, Error, Result};
use crate::hooks::{PostAccumulateGradHook, RemovableHandle, TensorHook, TensorHookEntry};

impl Tensor {
    pub fn register_hook(&self, hook: Rc<dyn TensorHook>) -> Result<RemovableHandle> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        let list = self.hooks_list_for_registration()?;
        let id = list.add(TensorHookEntry::User(hook), false);
        Ok(RemovableHandle::for_list(id, &list))
    }

    /// `retain_grad()`: idempotent; a no-op on leaves.
    pub fn retain_grad(&self) -> Result<()> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "can't retain_grad on Tensor that has requires_grad=False",
            ));
        }
        if self.is_leaf() || self.retains_grad() {
            return Ok(());
        }
        let list = self.hooks_list_for_registration()?;
        list.add(TensorHookEntry::RetainGrad(Rc::downgrade(&self.0)), false);
        self.meta_mut()?.retains_grad = true;
        Ok(())
    }

    pub fn register_post_accumulate_grad_hook(
        &self,
        hook: Rc<dyn PostAccumulateGradHook>,
    ) -> Result<RemovableHandle> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        if !self.is_leaf() {
            return Err(Error::runtime(
                "post accumulate grad hooks cannot be registered on non-leaf tensors",
            ));
        }
        let list = self.meta()?.post_accumulate_hooks.get_or_create();
        let id = list.add(hook, false);
        Ok(RemovableHandle::for_list(id, &list))
    }

    /// The tensor's hook list; on a non-leaf the first registration also hands
    /// the list to its grad_fn as a tensor pre-hook for `output_nr` (as
    /// PyTorch's `_register_hook_dict` does).
    fn hooks_list_for_registration(&self) -> Result<Rc<TensorHookList>> {
        let (list, grad_fn, output_nr, registered) = {
            let m = self.meta()?;
            (
                m.hooks.get_or_create(),
                m.grad_fn.clone(),
                m.output_nr,
                m.hooks_registered_on_node,
            )
        };
        if let (Some(node), false) = (grad_fn, registered) {
            node.add_tensor_pre_hooks(output_nr, self.id(), list.clone());
            self.meta_mut()?.hooks_registered_on_node = true;
        }
        Ok(list)
    }

    /// The hook list, registered on the grad_fn if needed (multi-grad hooks).
    pub(crate) fn hooks_list_for_registration_pub(&self) -> Result<Rc<TensorHookList>> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        self.hooks_list_for_registration()
    }

    /// The ordered hook entries (for `graph()`).
    pub fn hook_entries(&self) -> Vec<(crate::ids::HandleId, TensorHookEntry)> {
        self.meta()
            .map(|m| m.hooks.snapshot())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy listing its hooks"))
    }

    pub fn post_accumulate_hook_entries(
        &self,
    ) -> Vec<(crate::ids::HandleId, Rc<dyn PostAccumulateGradHook>)> {
        self.meta()
            .map(|m| m.post_accumulate_hooks.snapshot())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy listing its hooks"))
    }
}
