//! `Small<T>`: a vector whose first two elements live inline. Almost every
//! graph node has one or two edges, one input shape, at most two saved
//! tensors and one or two incoming gradients; keeping those inline saves a
//! heap allocation (and its free) per list, per node. Safe code only: the
//! inline cases are enum variants, so no element is ever uninitialized.

use std::ops::{Deref, DerefMut};

#[derive(Clone, Default)]
pub enum Small<T> {
    #[default]
    Zero,
    One(T),
    Two([T; 2]),
    Many(Vec<T>),
}

impl<T> Small<T> {
    #[inline]
    pub fn push(&mut self, item: T) {
        *self = match std::mem::take(self) {
            Small::Zero => Small::One(item),
            Small::One(a) => Small::Two([a, item]),
            Small::Two([a, b]) => {
                let mut v = Vec::with_capacity(4);
                v.extend([a, b, item]);
                Small::Many(v)
            }
            Small::Many(mut v) => {
                v.push(item);
                Small::Many(v)
            }
        };
    }

    pub fn clear(&mut self) {
        *self = Small::Zero;
    }

    /// `f` of each element of `items`, without growing step by step.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub fn map_slice<U>(items: &[U], mut f: impl FnMut(&U) -> T) -> Self {
        match items {
            [] => Small::Zero,
            [a] => Small::One(f(a)),
            [a, b] => Small::Two([f(a), f(b)]),
            _ => Small::Many(items.iter().map(f).collect()),
        }
    }

    /// A copy of `items`.
    #[inline]
    pub fn from_slice(items: &[T]) -> Self
    where
        T: Copy,
    {
        Small::map_slice(items, |&x| x)
    }

    /// `n` copies of `item` (`vec![item; n]`).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub fn filled(n: usize, item: T) -> Self
    where
        T: Clone,
    {
        match n {
            0 => Small::Zero,
            1 => Small::One(item),
            2 => Small::Two([item.clone(), item]),
            _ => Small::Many(vec![item; n]),
        }
    }
}

// Always inlined: a wasm build optimized for size would otherwise call a
// function for every slice access (it was ~3% of a scalar MLP step).
impl<T> Deref for Small<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        match self {
            Small::Zero => &[],
            Small::One(a) => std::slice::from_ref(a),
            Small::Two(a) => a,
            Small::Many(v) => v,
        }
    }
}

impl<T> DerefMut for Small<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Small::Zero => &mut [],
            Small::One(a) => std::slice::from_mut(a),
            Small::Two(a) => a,
            Small::Many(v) => v,
        }
    }
}

impl<T> FromIterator<T> for Small<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut s = Small::Zero;
        for item in iter {
            s.push(item);
        }
        s
    }
}

impl<T> From<Vec<T>> for Small<T> {
    fn from(v: Vec<T>) -> Self {
        if v.len() > 2 {
            Small::Many(v)
        } else {
            v.into_iter().collect()
        }
    }
}

/// By-value iteration (no allocation for the inline cases). The inline
/// case is two `Option`s taken in turn: an array's by-value iterator
/// (flattened) was a call per item plus drop glue in the size-optimized
/// wasm, on every node's edges and gradients.
pub enum IntoIter<T> {
    Inline(Option<T>, Option<T>),
    Many(std::vec::IntoIter<T>),
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        match self {
            IntoIter::Inline(a, b) => match a.take() {
                Some(x) => Some(x),
                None => b.take(),
            },
            IntoIter::Many(it) => it.next(),
        }
    }
}

impl<T> IntoIterator for Small<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    #[inline]
    fn into_iter(self) -> IntoIter<T> {
        match self {
            Small::Zero => IntoIter::Inline(None, None),
            Small::One(a) => IntoIter::Inline(Some(a), None),
            Small::Two([a, b]) => IntoIter::Inline(Some(a), Some(b)),
            Small::Many(v) => IntoIter::Many(v.into_iter()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Small;

    #[test]
    fn behaves_like_a_vec() {
        for n in 0..6 {
            let s: Small<usize> = (0..n).collect();
            let v: Vec<usize> = (0..n).collect();
            assert_eq!(&*s, v.as_slice());
            assert_eq!(s.clone().into_iter().collect::<Vec<_>>(), v);
            let from: Small<usize> = v.clone().into();
            assert_eq!(&*from, v.as_slice());
            assert_eq!(&*Small::filled(n, 7), vec![7; n].as_slice());
        }
        let mut s: Small<String> = Small::default();
        s.push("a".into());
        s[0].push('b');
        assert_eq!(&*s, ["ab".to_string()].as_slice());
        s.clear();
        assert!(s.is_empty());
    }
}
