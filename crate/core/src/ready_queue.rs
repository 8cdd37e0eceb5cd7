//! PyTorch's ready queue is a `std::priority_queue` ordered by
//! `sequence_nr` (higher first). Several `AccumulateGrad` nodes share
//! `UINT64_MAX`, so the order among equals is whatever libstdc++'s heap
//! gives. This is a transcription of libstdc++'s `push_heap` / `pop_heap`
//! (`__push_heap`, `__adjust_heap`) so ties break exactly as in PyTorch.

/// What the engine's loop needs of a ready queue: entries pushed with
/// their sequence number as they become ready, popped highest first (ties
/// as libstdc++'s heap breaks them). `ReadyQueue` is PyTorch's heap; a
/// source whose order is known in advance may give a cheaper queue with the
/// same pops (`deferred::pass::Planned`).
pub(crate) trait Ready {
    fn push(&mut self, priority: u64, item: usize);
    fn pop(&mut self) -> Option<usize>;
}

impl Ready for ReadyQueue<usize> {
    #[inline]
    fn push(&mut self, priority: u64, item: usize) {
        ReadyQueue::push(self, priority, item)
    }

    #[inline]
    fn pop(&mut self) -> Option<usize> {
        ReadyQueue::pop(self)
    }
}

pub struct ReadyQueue<T> {
    heap: Vec<(u64, T)>,
}

impl<T> Default for ReadyQueue<T> {
    fn default() -> Self {
        ReadyQueue { heap: Vec::new() }
    }
}

impl<T> ReadyQueue<T> {
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// `comp(a, b)` of the priority queue: true when `a` ranks below `b`.
    fn less(a: u64, b: u64) -> bool {
        a < b
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub fn push(&mut self, priority: u64, item: T) {
        self.heap.push((priority, item));
        let last = self.heap.len() - 1;
        self.sift_up(last, 0);
    }

    /// libstdc++ `__push_heap`: move the hole up while the parent ranks below.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    fn sift_up(&mut self, mut hole: usize, top: usize) {
        while hole > top {
            let parent = (hole - 1) / 2;
            if Self::less(self.heap[parent].0, self.heap[hole].0) {
                self.heap.swap(parent, hole);
                hole = parent;
            } else {
                break;
            }
        }
    }

    /// libstdc++ `pop_heap`: the last element is moved into the root's hole,
    /// the hole is pushed down to a leaf along the larger child (the right one
    /// unless the left is strictly larger), then sifted up again.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        let len = self.heap.len();
        if len == 0 {
            return None;
        }
        self.heap.swap(0, len - 1);
        let (_, top) = self.heap.pop()?;
        let len = self.heap.len();
        if len > 1 {
            let mut hole = 0;
            let mut child = hole;
            while child < (len - 1) / 2 {
                child = 2 * (child + 1);
                if Self::less(self.heap[child].0, self.heap[child - 1].0) {
                    child -= 1;
                }
                self.heap.swap(hole, child);
                hole = child;
            }
            if len.is_multiple_of(2) && child == (len - 2) / 2 {
                child = 2 * (child + 1);
                self.heap.swap(hole, child - 1);
                hole = child - 1;
            }
            self.sift_up(hole, 0);
        }
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::ReadyQueue;

    #[test]
    fn higher_priority_first() {
        let mut q = ReadyQueue::default();
        for (p, v) in [(1, 'a'), (5, 'b'), (3, 'c')] {
            q.push(p, v);
        }
        let order: Vec<char> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec!['b', 'c', 'a']);
    }

    #[test]
    fn ties_break_like_libstdcxx() {
        // Hand-simulated libstdc++ heap with equal keys pushed a, b, c, d:
        // pop 1 moves d into the root hole, the hole descends to index 2
        // (c rises), giving [c, b, d]; pop 2 gives [b, d]. Order a c b d.
        let mut q = ReadyQueue::default();
        for v in ['a', 'b', 'c', 'd'] {
            q.push(7, v);
        }
        let order: Vec<char> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec!['a', 'c', 'b', 'd']);
    }
}
