//! The wasm build's allocator: small blocks from per-size free lists, the
//! rest from talc. A scalar training step allocates and frees ~10^4 blocks
//! of a few sizes (a deferred op's entry, a handle's box, a node); a free
//! list pops and pushes one pointer where a general allocator searches
//! bins and coalesces (issue 10, W1: −7% per step in-process). talc
//! instead of std's dlmalloc for the rest: −1.7 KB gzip of wasm (W5);
//! alone it was slower than dlmalloc, under the pool as fast.
//!
//! Measured and kept as a known cost: W3's `g.mul(1)` hook (a [16] tensor
//! op per call) is ~3% slower per step with the pool than with dlmalloc
//! alone, with talc or dlmalloc under it; the cause was not found.
//!
//! Freed small blocks stay in their size's list for the next allocation of
//! that size (memory is not returned to other sizes): the peak of each size
//! is what the process keeps, as with any size-class allocator.
//!
//! wasm32 without threads: one instance, no concurrent calls.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ptr::null_mut;

/// Large blocks and the pool's chunks (talc: smaller than std's dlmalloc).
static LARGE: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Block sizes: multiples of `STEP` up to `MAX`.
const STEP: usize = 16;
const MAX: usize = 512;
const CLASSES: usize = MAX / STEP;
/// Carved from talc this many bytes at a time.
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
            return LARGE.alloc(layout);
        };
        let s = &mut *self.0.get();
        let head = s.free[c];
        if !head.is_null() {
            s.free[c] = *(head as *mut *mut u8);
            return head;
        }
        let size = (c + 1) * STEP;
        if (s.end as usize) - (s.bump as usize) < size {
            let chunk = LARGE.alloc(Layout::from_size_align_unchecked(CHUNK, STEP));
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

    /// Large blocks from the standard allocator's own zeroed allocation,
    /// which skips the fill where its memory is fresh.
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if class(&layout).is_none() {
            return LARGE.alloc_zeroed(layout);
        }
        let p = self.alloc(layout);
        if !p.is_null() {
            std::ptr::write_bytes(p, 0, layout.size());
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let Some(c) = class(&layout) else {
            return LARGE.dealloc(ptr, layout);
        };
        let s = &mut *self.0.get();
        *(ptr as *mut *mut u8) = s.free[c];
        s.free[c] = ptr;
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class(&layout), class(&new)) {
            (None, None) => LARGE.realloc(ptr, layout, new_size),
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
