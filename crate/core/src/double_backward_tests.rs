//! Every op's backward is itself differentiable (`create_graph`): double
//! backward of each op checked against finite differences of its first
//! backward (see `testing::check_double_backward`).

use crate::ops::{join, loss, matmul, reduce, shape_ops, softmax, unary, Operand};
use crate::testing::*;

#[test]
fn elementwise_double_backward() {
    check_binary_double_backward("mul", &[2, 3], &[3], |a, b| a.mul(b));
    check_binary_double_backward("div", &[2, 3], &[2, 1], |a, b| a.div(b));
    check_binary_double_backward("add*add", &[2, 2], &[2, 2], |a, b| {
        a.add(b)?.mul(&a.add(b)?)
    });
    check_binary_double_backward("sub*a", &[3], &[3], |a, b| a.sub(b)?.mul(a));
    check_unary_double_backward("pow3", &[3], |a| a.pow(3.0));
    check_unary_double_backward("pow-0.5", &[3], |a| a.pow(-0.5));
    check_unary_double_backward("neg*x", &[3], |a| a.neg()?.mul(a));
    check_unary_double_backward("div scalar", &[3], |a| a.mul(a)?.div(Operand::Scalar(2.0)));
}

#[test]
fn unary_double_backward() {
    check_unary_double_backward("exp", &[2, 2], unary::exp);
    check_unary_double_backward("log", &[3], unary::log);
    check_unary_double_backward("sin", &[3], unary::sin);
    check_unary_double_backward("cos", &[3], unary::cos);
    check_unary_double_backward("tanh", &[2, 3], unary::tanh);
    check_unary_double_backward("sigmoid", &[4], unary::sigmoid);
    check_unary_double_backward("sqrt", &[3], unary::sqrt);
    check_unary_double_backward("relu*x", &[4], |a| unary::relu(&a.sub(1.0)?)?.mul(a));
    check_unary_double_backward("abs*x", &[4], |a| unary::abs(&a.sub(1.05)?)?.mul(a));
}

#[test]
fn shape_and_reduction_double_backward() {
    check_unary_double_backward("reshape", &[2, 3], |a| a.mul(a)?.reshape(&[3, -1]));
    check_unary_double_backward("t reshape", &[2, 3], |a| a.mul(a)?.t()?.reshape(&[6]));
    check_unary_double_backward("transpose", &[2, 3], |a| a.mul(a)?.transpose(0, 1));
    check_unary_double_backward("unsqueeze", &[2, 3], |a| a.pow(3.0)?.unsqueeze(1));
    check_unary_double_backward("squeeze", &[2, 1], |a| a.pow(3.0)?.squeeze(None));
    check_unary_double_backward("expand", &[2, 1], |a| a.pow(2.0)?.expand(&[3, 2, 4]));
    check_unary_double_backward("clone", &[3], |a| shape_ops::clone(&a.mul(a)?));
    check_unary_double_backward("sum", &[2, 3], |a| reduce::sum(&a.pow(3.0)?));
    check_unary_double_backward("mean", &[2, 3], |a| reduce::mean(&a.pow(3.0)?));
    check_unary_double_backward("sum_dim", &[2, 3], |a| a.pow(3.0)?.sum_dim(1, false));
    check_unary_double_backward("mean_dim", &[2, 3], |a| a.pow(3.0)?.mean_dim(0, true));
}

#[test]
fn matmul_softmax_losses_double_backward() {
    check_binary_double_backward("dot", &[3], &[3], |a, b| matmul::matmul(&a.mul(a)?, b));
    check_binary_double_backward("mv", &[2, 3], &[3], |a, b| matmul::matmul(a, &b.mul(b)?));
    check_binary_double_backward("mm", &[2, 3], &[3, 2], |a, b| matmul::matmul(&a.mul(a)?, b));
    check_binary_double_backward("vm", &[3], &[3, 2], |a, b| matmul::matmul(a, &b.mul(b)?));
    check_unary_double_backward("softmax", &[2, 3], |a| softmax::softmax(a, 1));
    check_unary_double_backward("log_softmax", &[2, 3], |a| softmax::log_softmax(a, 0));
    check_binary_double_backward("mse", &[2, 3], &[2, 3], |a, b| {
        loss::mse_loss(a, b, loss::Reduction::Mean)
    });
    check_unary_double_backward("cross_entropy", &[2, 3], |a| {
        loss::cross_entropy(a, &[2, 0], loss::Reduction::Mean)
    });
    check_binary_double_backward("cat", &[2, 3], &[1, 3], |a, b| {
        join::cat(&[a.mul(a)?, b.pow(3.0)?], 0)
    });
    check_binary_double_backward("stack", &[3], &[3], |a, b| {
        join::stack(&[a.mul(b)?, b.pow(3.0)?], 1)
    });
}

#[test]
fn addmm_and_inplace_double_backward() {
    check_binary_double_backward("addmm", &[2, 3], &[3, 2], |x, w| {
        let bias = crate::testing::leaf(&[0.5, -0.5], &[2]);
        matmul::addmm(&bias, &x.mul(x)?, w)
    });
    check_binary_double_backward("mul_", &[3], &[3], |a, b| {
        let c = a.mul(2.0)?;
        c.mul_(b)?;
        c.mul(a)
    });
    check_binary_double_backward("div_ through a view", &[2, 3], &[3, 2], |a, b| {
        let c = a.mul(a)?;
        let v = c.t()?;
        v.div_(b)?;
        c.mul(a)
    });
}

/// The fused backward ops (`ops::backward_ops`) are differentiable twice
/// too: a triple backward through `tanh(x)` differentiates their own
/// formulas' graphs.
#[test]
fn fused_backward_ops_double_backward() {
    use crate::ops::backward_ops as b;
    check_binary_double_backward("tanh_backward", &[2, 3], &[2, 3], b::tanh_backward);
    check_binary_double_backward("sigmoid_backward", &[2, 3], &[2, 3], b::sigmoid_backward);
    check_binary_double_backward("threshold_backward*y", &[4], &[4], |g, x| {
        b::threshold_backward(g, &x.sub(0.3)?)?.mul(x)
    });
    check_binary_double_backward("softmax_backward_data", &[2, 3], &[2, 3], |g, y| {
        b::softmax_backward_data(g, y, Some(1))
    });
    check_binary_double_backward("log_softmax_backward_data", &[2, 3], &[2, 3], |g, y| {
        b::log_softmax_backward_data(g, y, Some(0))
    });
    for r in [
        loss::Reduction::Mean,
        loss::Reduction::Sum,
        loss::Reduction::None,
    ] {
        check_binary_double_backward("mse_loss_backward", &[2, 3], &[2, 3], |x, t| {
            let go = x.sum()?.mul(&t.sum()?)?;
            let go = if r == loss::Reduction::None {
                x.mul(&go)?
            } else {
                go
            };
            b::mse_loss_backward(&go, x, t, r)
        });
    }
    check_unary_double_backward("sgn*x", &[3], |a| b::sgn(&a.sub(0.5)?)?.mul(a));
    // Third order: d³/dx³ tanh through TanhBackwardBackward0's own graph.
    check_unary_double_backward("tanh'", &[3], |a| {
        let y = reduce::sum(&unary::tanh(a)?)?;
        let g =
            crate::engine::grad_ext(&[y], std::slice::from_ref(a), vec![None], true, true, false)?;
        match g.into_iter().next().flatten() {
            Some(g) => Ok(g),
            None => Err(crate::error::Error::runtime("no gradient".to_string())),
        }
    });
}

/// Backward formulas that build views, selects, Scalar divisions and sums of
/// a gradient (mean, squeeze/unsqueeze, stack, broadcasting's sum_to) are
/// differentiable like the rest.
#[test]
fn view_and_reduction_backward_formulas_double_backward() {
    check_unary_double_backward("mean^2", &[2, 3], |a| reduce::mean(a)?.pow(2.0));
    check_unary_double_backward("mean_dim^2", &[2, 3], |a| a.mean_dim(1, false)?.pow(2.0));
    check_unary_double_backward("squeeze^2", &[2, 3], |a| {
        a.unsqueeze(1)?.squeeze(None)?.pow(2.0)
    });
    check_unary_double_backward("unsqueeze^2", &[2, 3], |a| a.unsqueeze(-1)?.pow(3.0));
    check_unary_double_backward("stack^2", &[2, 3], |a| {
        join::stack(&[a.clone(), a.exp()?], 1)?.pow(2.0)
    });
    check_binary_double_backward("broadcast mul", &[2, 3], &[3], |a, b| a.mul(b)?.pow(2.0));
    check_binary_double_backward("broadcast add keep", &[2, 3], &[2, 1], |a, b| {
        a.add(b)?.pow(2.0)
    });
}
