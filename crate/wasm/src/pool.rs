//! The wasm's global allocator: small blocks from per-size free lists, the
//! rest from the system allocator (dlmalloc).
//!
//! Why: a graph step allocates and frees thousands of small objects (nodes,
//! tensor headers, storages, 4- to 64-byte arrays). In the size-optimized
//! wasm, dlmalloc's `malloc`/`free` and their bin helpers were ~10% of a
//! tensor backward's time (bench/PROFILE.md, fourteenth pass). Here a small
//! allocation is a pop from its class's list and a free is a push.
//!
//! Blocks of one class stay in that class: memory a program once used for
//! small objects is reused for small objects of the same size, never handed
//! back to dlmalloc. A steady loop (a training step in `hg.tidy`) reaches a
//! fixed set of blocks and stays flat; the soak tests measure it.
//!
//! The wasm is single-threaded (no atomics target feature), so the lists are
//! plain cells: nothing can call the allocator concurrently.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

/// Classes are multiples of `GRAIN` bytes up to `LARGEST`.
const GRAIN: usize = 8;
const LARGEST: usize = 256;
const CLASSES: usize = LARGEST / GRAIN;
/// Fresh blocks are carved from chunks of this size.
const CHUNK: usize = 16 * 1024;

struct State {
    /// The head of each class's free list; a free block's first word links
    /// to the next one.
    free: [*mut u8; CLASSES],
    /// The unused rest of the current chunk.
    next: *mut u8,
    end: *mut u8,
}

pub struct Pool {
    state: UnsafeCell<State>,
}

// SAFETY: the wasm32-unknown-unknown build is single-threaded (no shared
// memory), so the allocator is never entered from two threads.
unsafe impl Sync for Pool {}

impl Pool {
    pub const fn new() -> Self {
        Pool {
            state: UnsafeCell::new(State {
                free: [ptr::null_mut(); CLASSES],
                next: ptr::null_mut(),
                end: ptr::null_mut(),
            }),
        }
    }
}

impl Default for Pool {
    fn default() -> Self {
        Self::new()
    }
}

/// The class of a small layout, or `None` for one dlmalloc serves.
#[inline]
fn class(layout: Layout) -> Option<usize> {
    if layout.size() <= LARGEST && layout.align() <= GRAIN && layout.size() != 0 {
        Some((layout.size() - 1) / GRAIN)
    } else {
        None
    }
}

impl State {
    #[cold]
    unsafe fn carve(&mut self, c: usize) -> *mut u8 {
        let size = (c + 1) * GRAIN;
        if (self.end as usize) - (self.next as usize) < size {
            // The rest of the old chunk (< 256 bytes) is dropped: at most 1.6%
            // of a chunk.
            let chunk = System.alloc(Layout::from_size_align_unchecked(CHUNK, GRAIN));
            if chunk.is_null() {
                return chunk;
            }
            self.next = chunk;
            self.end = chunk.add(CHUNK);
        }
        let p = self.next;
        self.next = p.add(size);
        p
    }
}

unsafe impl GlobalAlloc for Pool {
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match class(layout) {
            Some(c) => {
                let s = &mut *self.state.get();
                let head = s.free[c];
                if head.is_null() {
                    s.carve(c)
                } else {
                    s.free[c] = *(head as *mut *mut u8);
                    head
                }
            }
            None => System.alloc(layout),
        }
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        match class(layout) {
            Some(c) => {
                let s = &mut *self.state.get();
                *(p as *mut *mut u8) = s.free[c];
                s.free[c] = p;
            }
            None => System.dealloc(p, layout),
        }
    }

    /// A large block stays dlmalloc's `calloc` (fresh pages need no clearing).
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if class(layout).is_none() {
            return System.alloc_zeroed(layout);
        }
        let p = self.alloc(layout);
        if !p.is_null() {
            ptr::write_bytes(p, 0, layout.size());
        }
        p
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class(layout), class(new)) {
            (None, None) => System.realloc(p, layout, new_size),
            (Some(a), Some(b)) if a == b => p,
            _ => {
                let q = self.alloc(new);
                if !q.is_null() {
                    ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                    self.dealloc(p, layout);
                }
                q
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap_or_else(|_| unreachable!())
    }

    #[test]
    fn a_freed_small_block_is_reused_by_its_class_only() {
        let pool = Pool::new();
        unsafe {
            let a = pool.alloc(layout(24, 8));
            let b = pool.alloc(layout(20, 4));
            assert_ne!(a, b);
            assert_eq!(a as usize % 8, 0);
            assert_eq!(b as usize % 8, 0);
            pool.dealloc(a, layout(24, 8));
            // 17..=24 bytes share a's class; 32 bytes does not.
            let c = pool.alloc(layout(32, 8));
            assert_ne!(c, a);
            let d = pool.alloc(layout(17, 1));
            assert_eq!(d, a);
            for (p, l) in [(b, layout(20, 4)), (c, layout(32, 8)), (d, layout(17, 1))] {
                pool.dealloc(p, l);
            }
        }
    }

    #[test]
    fn blocks_do_not_overlap_and_keep_their_bytes() {
        let pool = Pool::new();
        let mut live = Vec::new();
        unsafe {
            // More than a chunk's worth, every class.
            for i in 0..2_000usize {
                let l = layout(1 + i % LARGEST, 1 << (i % 4));
                let p = pool.alloc(l);
                assert!(!p.is_null());
                assert_eq!(p as usize % l.align(), 0);
                ptr::write_bytes(p, (i % 251) as u8, l.size());
                live.push((p, l, (i % 251) as u8));
            }
            for &(p, l, v) in &live {
                assert!(
                    (0..l.size()).all(|k| *p.add(k) == v),
                    "a block was overwritten"
                );
            }
            for (p, l, _) in live {
                pool.dealloc(p, l);
            }
        }
    }

    #[test]
    fn realloc_keeps_the_contents_across_small_and_large() {
        let pool = Pool::new();
        unsafe {
            let mut l = layout(8, 4);
            let mut p = pool.alloc(l);
            for k in 0..8 {
                *p.add(k) = k as u8;
            }
            // Within the class, across classes, to dlmalloc and back.
            for size in [6, 40, 4_000, 300, 16] {
                p = pool.realloc(p, l, size);
                l = layout(size, 4);
                assert!((0..6).all(|k| *p.add(k) == k as u8));
            }
            pool.dealloc(p, l);
            // A large or over-aligned block is dlmalloc's.
            let q = pool.alloc(layout(64, 16));
            assert_eq!(q as usize % 16, 0);
            pool.dealloc(q, layout(64, 16));
        }
    }

    #[test]
    fn a_zeroed_block_is_zero_even_when_reused() {
        let pool = Pool::new();
        unsafe {
            for size in [24, 4_096] {
                let l = layout(size, 8);
                let p = pool.alloc(l);
                ptr::write_bytes(p, 0xAB, size);
                pool.dealloc(p, l);
                let z = pool.alloc_zeroed(l);
                assert!((0..size).all(|k| *z.add(k) == 0), "{size} bytes not zeroed");
                pool.dealloc(z, l);
            }
        }
    }
}
