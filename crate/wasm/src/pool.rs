//! The wasm build's allocator: small blocks from per-size free lists, the
//! rest from the standard one (dlmalloc). A scalar training step allocates
//! and frees ~10^4 blocks of a few sizes (a deferred op's entry, a handle's
//! box, a node); a free list pops and pushes one pointer where dlmalloc
//! searches and coalesces bins (issue 10, W1).
//!
//! Freed small blocks stay in their size's list for the next allocation of
//! that size (memory is not returned to other sizes): the peak of each size
//! is what the process keeps, as with any size-class allocator.
//!
//! wasm32 without threads: one instance, no concurrent calls.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr::null_mut;

/// Block sizes: multiples of `STEP` up to `MAX`.
const STEP: usize = 16;
const MAX: usize = 256;
const CLASSES: usize = MAX / STEP;
/// Carved from the standard allocator this many bytes at a time.
const CHUNK: usize = 64 * 1024;

struct State {
    /// The first free block of each size (each links to the next).
    free: [*mut u8; CLASSES],
    /// The unused rest of the current chunk.
    bump: *mut u8,
    end: *mut u8,
}

pub struct Pool(UnsafeCell<State>);

// SAFETY: wasm32 without threads runs one call at a time.
unsafe impl Sync for Pool {}

impl Pool {
    pub const fn new() -> Pool {
        Pool(UnsafeCell::new(State {
            free: [null_mut(); CLASSES],
            bump: null_mut(),
            end: null_mut(),
        }))
    }
}

impl Default for Pool {
    fn default() -> Self {
        Pool::new()
    }
}

/// The size class of a layout served from the pool, if it is one.
#[inline]
fn class(layout: &Layout) -> Option<usize> {
    let size = layout.size();
    if size == 0 || size > MAX || layout.align() > STEP {
        return None;
    }
    Some((size - 1) / STEP)
}

unsafe impl GlobalAlloc for Pool {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(c) = class(&layout) else {
            return System.alloc(layout);
        };
        let s = &mut *self.0.get();
        let head = s.free[c];
        if !head.is_null() {
            s.free[c] = *(head as *mut *mut u8);
            return head;
        }
        let size = (c + 1) * STEP;
        if (s.end as usize) - (s.bump as usize) < size {
            let chunk = System.alloc(Layout::from_size_align_unchecked(CHUNK, STEP));
            if chunk.is_null() {
                return null_mut();
            }
            s.bump = chunk;
            s.end = chunk.add(CHUNK);
        }
        let p = s.bump;
        s.bump = p.add(size);
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let Some(c) = class(&layout) else {
            return System.dealloc(ptr, layout);
        };
        let s = &mut *self.0.get();
        *(ptr as *mut *mut u8) = s.free[c];
        s.free[c] = ptr;
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class(&layout), class(&new)) {
            (None, None) => System.realloc(ptr, layout, new_size),
            (Some(a), Some(b)) if a == b => ptr,
            _ => {
                let p = self.alloc(new);
                if !p.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                p
            }
        }
    }
}
