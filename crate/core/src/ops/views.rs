//! `permute` (`PermuteBackward0`) and `unbind` (`UnbindBackward0`, one node
//! with an output per slice): views of their input, as in PyTorch
//! (aten/src/ATen/native/TensorShape.cpp; derivatives.yaml: `permute_backwards`,
//! `unbind_backward`). Python's `t.T` on 2-D is a permute; `a, b = t` and
//! `for x in t` are an unbind.

use super::index::{part_values, Lanes};
use super::{grad_in, needs_graph, record};
use crate::error::{Error, Result};
use crate::node::Node;
use crate::shape::wrap_dim;
use crate::tensor::{Array, Storage, Tensor};
use crate::view::ViewStep;

/// `t.permute(dims)`: axis `dims[i]` of `t` as axis `i`; PyTorch's errors
/// for a wrong count, a dim out of range and a repeated dim.
pub fn permute(a: &Tensor, dims: &[i64]) -> Result<Tensor> {
    let n = a.ndim();
    if dims.len() != n {
        return Err(Error::runtime(format!(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {}",
            dims.len()
        )));
    }
    let mut perm = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for &d in dims {
        let d = wrap_dim(d, n)?;
        if std::mem::replace(&mut seen[d], true) {
            return Err(Error::runtime("permute(): duplicate dims are not allowed."));
        }
        perm.push(d);
    }
    permute_axes(a, perm)
}

/// `permute` of a checked permutation (also the backward's: the inverse).
pub(crate) fn permute_axes(a: &Tensor, perm: Vec<usize>) -> Result<Tensor> {
    let (_, strides) = a.layout();
    let out = a.data()?.permuted(&perm);
    let out_shape = out.shape().to_vec();
    let inverse = crate::view::inverse(&perm);
    let t = record(
        "PermuteBackward0",
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch: permute_backwards(grad, dims) = grad.permute(inverse).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            Ok(vec![Some(permute_axes(&g, inverse.clone())?)])
        }),
    )?;
    t.set_strides(perm.iter().map(|&p| strides[p]).collect())?;
    crate::view::link(a, &t, ViewStep::Permute { perm })?;
    Ok(t)
}

/// `t.unbind(dim)`: the slices along `dim`, each a view without it, all
/// outputs of one `UnbindBackward0` (output `i` is slice `i`).
pub fn unbind(a: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
    let (shape, strides) = a.layout();
    if shape.is_empty() {
        return Err(Error::Index(
            "Dimension specified as 0 but tensor has no dimensions".into(),
        ));
    }
    let d = wrap_dim(dim, shape.len())?;
    let lanes = |i| Lanes {
        dim: d,
        start: i,
        step: 1,
        len: 1,
    };
    let parts = {
        let data = a.data()?;
        (0..shape[d])
            .map(|i| part_values(&data, &lanes(i), true))
            .collect::<Result<Vec<Array>>>()?
    };
    if let Some(e) = crate::error::take_fault() {
        return Err(e);
    }
    let mut slice_strides = strides;
    slice_strides.remove(d);
    let node = (needs_graph(&[Some(a)]) && !parts.is_empty()).then(|| {
        let shapes = parts.iter().map(|p| p.shape().to_vec()).collect();
        let axis = d as i64;
        Node::new_op(
            "UnbindBackward0",
            vec![a.gradient_edge()],
            shapes,
            Vec::new(),
            // PyTorch: unbind_backward = stack(grads, dim), zeros for the
            // slices that got none.
            Box::new(move |ctx| {
                let gs: Vec<Tensor> = ctx
                    .grads
                    .iter()
                    .map(|g| grad_in(std::slice::from_ref(g), ctx.shape))
                    .collect();
                Ok(vec![Some(super::join::stack(&gs, axis)?)])
            }),
        )
    });
    let mut out = Vec::with_capacity(parts.len());
    for (i, p) in parts.into_iter().enumerate() {
        let t = Tensor::with_storage(Storage::from_data(p.into()), node.clone(), i, false);
        if let Some(node) = &node {
            node.add_output(&t);
        }
        t.set_strides(slice_strides.clone())?;
        crate::view::link(
            a,
            &t,
            ViewStep::Part {
                from: shape.clone(),
                lanes: lanes(i),
                drop_dim: true,
            },
        )?;
        out.push(t);
    }
    if let (Some(node), Some(first)) = (&node, out.first()) {
        if crate::trace::is_recording() {
            crate::trace::record_op(node.id, node.name, &[a], first);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn permute_and_unbind_gradients() {
        check_unary_gradients("permute", &[2, 3, 4], |a| permute(a, &[2, 0, 1]));
        check_unary_gradients("unbind", &[2, 3], |a| {
            let s = unbind(a, 1)?;
            s[0].mul(3.0)?.add(&s[2])
        });
    }

    #[test]
    fn permute_values_strides_and_errors() {
        let a = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let p = ok(permute(&a, &[1, 0]));
        assert_eq!(values(&p), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(p.strides(), vec![1, 3]);
        assert_eq!(p.grad_fn().map(|f| f.name), Some("PermuteBackward0"));
        let err = |r: Result<Tensor>| r.err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            err(permute(&a, &[0, 0])),
            "permute(): duplicate dims are not allowed."
        );
        assert!(err(permute(&a, &[0])).ends_with("input.dim() = 2 is not equal to len(dims) = 1"));
    }

    #[test]
    fn unbind_is_one_node_with_an_output_per_slice() {
        let a = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let s = ok(unbind(&a, 0));
        assert_eq!(s.len(), 2);
        assert_eq!(values(&s[1]), vec![4.0, 5.0, 6.0]);
        let (f0, f1) = (s[0].grad_fn(), s[1].grad_fn());
        assert!(matches!((&f0, &f1), (Some(x), Some(y)) if std::rc::Rc::ptr_eq(x, y)));
        assert_eq!(s[1].output_nr(), 1);
        ok(ok(s[1].sum()).backward());
        assert_eq!(grad_values(&a), vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    }
}
