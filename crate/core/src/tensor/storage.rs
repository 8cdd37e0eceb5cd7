//! What a tensor's values live in: `Data` (an array, or the number of a 0-d
//! tensor inline) and `Storage`, the data plus the version counter PyTorch
//! keeps per storage. Apart from tensor.rs because tensors, saved tensors
//! and views all share a storage; this is the part they share.

use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;

use super::Array;
use crate::error::{fault, Error, Result};

/// A storage's values: an array, or the one value of a 0-d tensor kept
/// inline (no heap array: a scalar graph makes one per op). The array is
/// built on first access through `Storage::read` / `Tensor::data`; code on
/// the hot path reads and writes the number directly.
pub(crate) enum Data {
    Scalar(f32),
    Array(Array),
}

impl From<Array> for Data {
    fn from(a: Array) -> Self {
        Data::Array(a)
    }
}

impl Data {
    #[inline]
    pub fn shape(&self) -> &[usize] {
        match self {
            Data::Scalar(_) => &[],
            Data::Array(a) => a.shape(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Data::Scalar(_) => 1,
            Data::Array(a) => a.len(),
        }
    }

    /// The value of a 0-d tensor (`None` for any other shape).
    #[inline]
    pub fn scalar(&self) -> Option<f32> {
        match self {
            Data::Scalar(v) => Some(*v),
            Data::Array(a) => match a.as_slice() {
                [v] if a.ndim() == 0 => Some(*v),
                _ => None,
            },
        }
    }

    /// `f` elementwise (`mapv`).
    pub fn map(&self, f: fn(f32) -> f32) -> Data {
        match self {
            Data::Scalar(v) => Data::Scalar(f(*v)),
            Data::Array(a) => Data::Array(a.mapv(f)),
        }
    }

    /// `vector` on the elements PyTorch's `cpu_kernel_vec` takes in whole
    /// blocks of `block` (the first `len - len % block`), `tail` on the
    /// rest, which its scalar loop computes.
    pub fn map_blocks(&self, block: usize, vector: fn(f32) -> f32, tail: fn(f32) -> f32) -> Data {
        match self {
            Data::Scalar(v) => Data::Scalar(tail(*v)),
            Data::Array(a) => {
                let mut out = a.clone();
                let values = out.as_slice_mut();
                let split = values.len() - values.len() % block;
                let (head, rest) = values.split_at_mut(split);
                head.iter_mut().for_each(|v| *v = vector(*v));
                rest.iter_mut().for_each(|v| *v = tail(*v));
                Data::Array(out)
            }
        }
    }
}

/// Data plus the version counter PyTorch keeps per storage. A view and its
/// base share the counter (PyTorch: views share their base's version).
pub struct Storage {
    pub(crate) data: RefCell<Data>,
    /// The counter, inline until a view shares it (one allocation less per
    /// tensor: most storages are never viewed). Set directly by
    /// `Tensor::scalar_at_version`.
    pub(super) own: Cell<u32>,
    shared: RefCell<Option<Rc<Cell<u32>>>>,
}

impl Storage {
    /// A 0-d array is kept as its number (leaves of a scalar graph too).
    pub fn new(data: Array) -> Rc<Self> {
        let data = match (data.ndim(), data.first()) {
            (0, Some(v)) => Data::Scalar(*v),
            _ => Data::Array(data),
        };
        Storage::from_data(data)
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(crate) fn from_data(data: Data) -> Rc<Self> {
        Rc::new(Storage {
            data: RefCell::new(data),
            own: Cell::new(0),
            shared: RefCell::new(None),
        })
    }

    /// The values as an array (built now if they were an inline number).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub(crate) fn read(&self) -> Result<Ref<'_, Array>> {
        let busy = || Error::internal("tensor data is busy");
        if let Ok(mut d) = self.data.try_borrow_mut() {
            if let Data::Scalar(v) = *d {
                *d = Data::Array(Array::scalar(v));
            }
        }
        let d = self.data.try_borrow().map_err(|_| busy())?;
        Ref::filter_map(d, |d| match d {
            Data::Array(a) => Some(a),
            Data::Scalar(_) => None,
        })
        .map_err(|_| busy())
    }

    /// The value of a 0-d storage, without building an array; `None` for
    /// other shapes (and while the data is being written: then `read` says
    /// it is busy).
    #[inline]
    pub(crate) fn scalar(&self) -> Option<f32> {
        self.data.try_borrow().ok().and_then(|d| d.scalar())
    }

    /// The shared counter, creating it from the inline one on first use.
    fn counter(&self) -> Rc<Cell<u32>> {
        match self.shared.try_borrow_mut() {
            Ok(mut s) => s
                .get_or_insert_with(|| Rc::new(Cell::new(self.own.get())))
                .clone(),
            // A detached counter would miss later bumps: a fault, not a copy.
            Err(_) => {
                fault("storage version counter is busy");
                Rc::new(Cell::new(self.own.get()))
            }
        }
    }

    #[inline]
    pub fn version(&self) -> u32 {
        match self.shared.try_borrow() {
            Ok(s) => s.as_ref().map_or(self.own.get(), |c| c.get()),
            Err(_) => self.own.get(),
        }
    }

    pub fn bump_version(&self) {
        match self.shared.try_borrow() {
            Ok(s) if s.is_some() => {
                if let Some(c) = s.as_ref() {
                    c.set(c.get().wrapping_add(1));
                }
            }
            _ => self.own.set(self.own.get().wrapping_add(1)),
        }
    }

    pub(crate) fn share_version_with(&self, other: &Storage) {
        let c = other.counter();
        match self.shared.try_borrow_mut() {
            Ok(mut v) => *v = Some(c),
            Err(_) => fault("storage version counter is busy while sharing it"),
        }
    }
}
