//! `F.mse_loss` (`MseLossBackward0`) and `F.cross_entropy` with class-index
//! targets and a reduction: `log_softmax` then `nll_loss` (`NllLossBackward0` over
//! `LogSoftmaxBackward0`), as PyTorch's `cross_entropy_loss` builds it.

use super::{backward_ops, grad_in, need, record, shape_ops, softmax};
use crate::error::{Error, Result};
use crate::node::SavedTensor;
use crate::tensor::{Array, Tensor};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

impl Reduction {
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            other => Err(Error::type_error(format!(
                "{other} is not a valid value for reduction"
            ))),
        }
    }
}

/// `torch.broadcast_tensors` for two tensors: an `expand` view only for the
/// one whose shape changes (PyTorch's `expand_outplace` returns the tensor
/// itself when it already has the shape).
fn broadcast_pair(a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor)> {
    let shape = crate::shape::broadcast_shapes(&a.shape(), &b.shape())?;
    let to: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let fit = |t: &Tensor| -> Result<Tensor> {
        if t.shape() == shape {
            Ok(t.clone())
        } else {
            shape_ops::expand(t, &to)
        }
    };
    Ok((fit(a)?, fit(b)?))
}

pub fn mse_loss(input: &Tensor, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
    let (is, ts) = (input.shape(), target.shape());
    if is != ts {
        // PyTorch: torch/nn/functional.py mse_loss warns (stacklevel=2: the
        // caller's line), then broadcasts.
        crate::context::warn_at_caller(&format!(
            "Using a target size (torch.Size({})) that is different to the input size (torch.Size({})). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            crate::shape::fmt_shape(&ts),
            crate::shape::fmt_shape(&is)
        ));
    }
    let (x, t) = broadcast_pair(input, target)?;
    let diff = super::arith::broadcast_zip(&*x.data()?, &*t.data()?, |a, b| a - b)?;
    let sq = super::backward_ops::map_with(&diff, 0.0, |d, _| d * d);
    // 'mean' of no elements is 0 / 0: NaN, as PyTorch's.
    let n = sq.len() as f32;
    let out = match reduction {
        Reduction::None => sq,
        Reduction::Sum => Array::scalar(sq.sum()),
        Reduction::Mean => Array::scalar(sq.sum() / n),
    };
    let out_shape = out.shape().to_vec();
    record(
        "MseLossBackward0",
        &[Some(&x), Some(&t)],
        out,
        || vec![SavedTensor::save(&x), SavedTensor::save(&t)],
        // PyTorch: self: mse_loss_backward(grad, self, target, reduction);
        // target: mse_loss_backward(grad, target, self, reduction).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            let (x, t) = (&ctx.saved[0], &ctx.saved[1]);
            Ok(vec![
                need(ctx.needs, 0, || {
                    backward_ops::mse_loss_backward(&g, x, t, reduction)
                })?,
                need(ctx.needs, 1, || {
                    backward_ops::mse_loss_backward(&g, t, x, reduction)
                })?,
            ])
        }),
    )
}

/// `F.nll_loss(logp, targets, reduction)`; `logp` is [N, C] (one target
/// per row) or [C] (one target). 'none' gives [N] (0-d for [C]).
pub fn nll_loss(logp: &Tensor, targets: &[i64], reduction: Reduction) -> Result<Tensor> {
    let shape = logp.shape();
    let (rows, classes) = match shape.as_slice() {
        [c] => (1, *c),
        [n, c] => (*n, *c),
        _ => {
            return Err(Error::type_error(format!(
                "hookgrad's cross_entropy and nll_loss support [N, C] or [C] inputs, got {}",
                crate::shape::fmt_shape(&shape)
            )))
        }
    };
    if targets.len() != rows {
        return Err(Error::type_error(format!(
            "Expected input batch_size ({rows}) to match target batch_size ({}).",
            targets.len()
        )));
    }
    for &t in targets {
        if t < 0 || t as usize >= classes {
            return Err(Error::Index(format!("Target {t} is out of bounds.")));
        }
    }
    let target_shape: &[usize] = if shape.len() == 1 { &[] } else { &[rows] };
    // The gradient w.r.t. logp for a gradient of 1: -1 (-1/N for 'mean')
    // at each target entry.
    let flat_index = |row: usize, t: i64| row * classes + t as usize;
    let picked: Vec<f32> = {
        let lp = logp.data()?;
        let flat = lp.as_slice();
        targets
            .iter()
            .enumerate()
            .map(|(row, &t)| flat.get(flat_index(row, t)).copied().unwrap_or(0.0))
            .collect()
    };
    let weight = match reduction {
        Reduction::Mean => -1.0 / rows.max(1) as f32,
        _ => -1.0,
    };
    let out = match reduction {
        Reduction::None => Array::from_shape_vec(target_shape, picked.iter().map(|v| -v).collect())
            .map_err(|e| Error::internal(format!("nll_loss: {e}")))?,
        // PyTorch sums the picked values, then negates (and divides by the
        // total weight, N, for 'mean'; no rows: 0 / 0, NaN, as PyTorch's).
        Reduction::Sum => Array::scalar(-picked.iter().sum::<f32>()),
        Reduction::Mean => Array::scalar(-picked.iter().sum::<f32>() / rows as f32),
    };
    let mut mask = Array::zeros(&shape);
    let m = mask.as_slice_mut();
    for (row, &t) in targets.iter().enumerate() {
        if let Some(slot) = m.get_mut(flat_index(row, t)) {
            *slot = weight;
        }
    }
    let targets = targets.to_vec();
    // PyTorch's NllLossBackward0 saves self, target and total_weight (weight
    // is undefined and not saved), so `saved_tensors_hooks` packs all three.
    // hookgrad's target is float32 (PyTorch's is int64): same shape, values.
    let target_values: Vec<f32> = targets.iter().map(|&t| t as f32).collect();
    let saved_target = Tensor::from_vec(target_shape, target_values, &Default::default())?;
    let total_weight = Tensor::scalar(rows as f32);
    let out_shape = out.shape().to_vec();
    record(
        "NllLossBackward0",
        &[Some(logp)],
        out,
        // Self is saved with its history: nll_loss_backward's node has an edge to it.
        || {
            vec![
                SavedTensor::save(logp),
                SavedTensor::save(&saved_target),
                SavedTensor::save(&total_weight),
            ]
        },
        // PyTorch: nll_loss_backward(grad, self, target, ...), the constant
        // mask times grad.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            Ok(vec![Some(backward_ops::nll_loss_backward(
                &g,
                &ctx.saved[0],
                &targets,
                &mask,
                reduction,
            )?)])
        }),
    )
}

/// `F.cross_entropy(logits, targets, reduction)`: `log_softmax` over the
/// class dim, then `nll_loss`.
pub fn cross_entropy(logits: &Tensor, targets: &[i64], reduction: Reduction) -> Result<Tensor> {
    let dim = if logits.ndim() == 1 { 0 } else { 1 };
    if logits.ndim() == 0 {
        return Err(Error::Index(
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)".to_string(),
        ));
    }
    let logp = softmax::log_softmax(logits, dim)?;
    nll_loss(&logp, targets, reduction)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn loss_gradients_match_finite_differences() {
        for r in [Reduction::Mean, Reduction::Sum, Reduction::None] {
            check_binary_gradients("mse", &[2, 3], &[2, 3], |a, b| mse_loss(a, b, r));
        }
        for r in [Reduction::Mean, Reduction::Sum, Reduction::None] {
            check_unary_gradients("cross_entropy", &[2, 3], |a| cross_entropy(a, &[2, 0], r));
            check_unary_gradients("cross_entropy 1-d", &[4], |a| cross_entropy(a, &[1], r));
        }
    }

    #[test]
    fn cross_entropy_by_hand_and_names() {
        // Equal logits over 4 classes: loss = ln 4.
        let a = leaf(&[0.5; 8], &[2, 4]);
        let l = ok(cross_entropy(&a, &[1, 3], Reduction::Mean));
        assert!((item(&l) - 4.0f32.ln()).abs() < 1e-6);
        let f = l.grad_fn();
        assert_eq!(f.as_ref().map(|f| f.name), Some("NllLossBackward0"));
        let next = f.map(|f| f.next_functions()).unwrap_or_default();
        assert_eq!(
            next[0].0.as_ref().map(|n| n.name),
            Some("LogSoftmaxBackward0")
        );
        let e = cross_entropy(&a, &[1, 4], Reduction::Mean)
            .err()
            .map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("Target 4 is out of bounds."));
    }

    #[test]
    fn mse_by_hand() {
        let a = leaf(&[1.0, 2.0], &[2]);
        let b = crate::testing::constant(&[0.0, 0.0], &[2]);
        assert_eq!(item(&ok(mse_loss(&a, &b, Reduction::Mean))), 2.5);
        assert_eq!(item(&ok(mse_loss(&a, &b, Reduction::Sum))), 5.0);
        assert_eq!(
            Reduction::parse("avg")
                .err()
                .map(|e| e.to_string())
                .as_deref(),
            Some("avg is not a valid value for reduction")
        );
    }
}
