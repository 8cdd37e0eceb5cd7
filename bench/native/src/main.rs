//! hookgrad's core built natively (release), on the workloads of
//! bench/run.mjs. Prints one JSON object: per workload, the times (ms) of
//! each timed repetition, the loss and (with --check) every gradient, so the
//! runner can verify it against the JS peers before believing the times.
//!
//! Usage: hookgrad-bench-native [--reps N] [--warmup N] [--check] [--only w1,w2,...]

mod data;

use std::fmt::Write as _;
use std::rc::Rc;
use std::time::Instant;

use hookgrad_core::deferred::{Handle, Op, Other};
use hookgrad_core::{Result, Tensor, TensorOptions};

fn leaf(shape: &[usize], v: &[f32], requires_grad: bool) -> Result<Tensor> {
    Tensor::from_vec(
        shape,
        v.to_vec(),
        &TensorOptions {
            requires_grad,
            name: None,
        },
    )
}

fn grad_vec(t: &Tensor) -> Result<Vec<f32>> {
    match t.grad_raw() {
        Some(g) => Ok(g.to_array()?.iter().copied().collect()),
        None => Ok(vec![]),
    }
}

struct Out {
    loss: f32,
    grads: Vec<Vec<f32>>,
    calls: usize,
}

// ----- W1: micrograd's MLP on 0-d tensors -------------------------------------

struct Neuron {
    w: Vec<Tensor>,
    b: Tensor,
}

/// The W1 network's layers, its inputs and its targets.
type W1Setup = (Vec<Vec<Neuron>>, Vec<f32>, Vec<f32>);

fn w1_setup() -> Result<W1Setup> {
    let (layers, xs, ys) = data::w1();
    let mut out = vec![];
    for l in &layers {
        let mut neurons = vec![];
        for o in 0..l.nout {
            let base = o * (l.nin + 1);
            let w = (0..l.nin)
                .map(|i| leaf(&[], &l.params[base + i..base + i + 1], true))
                .collect::<Result<Vec<_>>>()?;
            let b = leaf(&[], &l.params[base + l.nin..base + l.nin + 1], true)?;
            neurons.push(Neuron { w, b });
        }
        out.push(neurons);
    }
    Ok((out, xs, ys))
}

enum In {
    Num(f32),
    T(Tensor),
}

fn w1_step(layers: &[Vec<Neuron>], xs: &[f32], ys: &[f32]) -> Result<Out> {
    let mut total: Option<Tensor> = None;
    for s in 0..data::W1_SAMPLES {
        let mut x = vec![In::Num(xs[s * 2]), In::Num(xs[s * 2 + 1])];
        for (li, neurons) in layers.iter().enumerate() {
            let last = li == layers.len() - 1;
            let mut next = vec![];
            for n in neurons {
                let mut act = n.b.clone();
                for (w, xi) in n.w.iter().zip(&x) {
                    let p = match xi {
                        In::Num(v) => w.mul(*v)?,
                        In::T(t) => w.mul(t)?,
                    };
                    act = act.add(&p)?;
                }
                next.push(In::T(if last { act } else { act.tanh()? }));
            }
            x = next;
        }
        let In::T(out) = &x[0] else { unreachable!() };
        let diff = out.sub(ys[s])?;
        let sq = diff.mul(&diff)?;
        total = Some(match total {
            Some(t) => t.add(&sq)?,
            None => sq,
        });
    }
    let loss = total.expect("samples").mul(1.0 / data::W1_SAMPLES as f32)?;
    w1_clear_grads(layers)?;
    loss.backward()?;
    Ok(Out {
        loss: loss.item()?,
        grads: vec![w1_grads(layers)?],
        calls: 0,
    })
}

// ----- W2: tensor MLP ------------------------------------------------------------

fn w2_setup() -> Result<(Tensor, Tensor, Vec<Tensor>)> {
    let d = data::w2();
    Ok((
        leaf(&[data::B, data::NIN], &d.x, false)?,
        leaf(&[data::B, data::NOUT], &d.y, false)?,
        vec![
            leaf(&[data::NIN, data::NHID], &d.w1, true)?,
            leaf(&[data::NHID], &d.b1, true)?,
            leaf(&[data::NHID, data::NOUT], &d.w2, true)?,
            leaf(&[data::NOUT], &d.b2, true)?,
        ],
    ))
}

fn w2_step(x: &Tensor, y: &Tensor, p: &[Tensor]) -> Result<Out> {
    for t in p {
        t.set_grad(None)?;
    }
    let out = x
        .matmul(&p[0])?
        .add(&p[1])?
        .relu()?
        .matmul(&p[2])?
        .add(&p[3])?;
    let diff = out.sub(y)?;
    let loss = diff.mul(&diff)?.mean()?;
    loss.backward()?;
    Ok(Out {
        loss: loss.item()?,
        grads: p.iter().map(grad_vec).collect::<Result<_>>()?,
        calls: 0,
    })
}

// ----- W3: hook overhead on a 2,000-op chain --------------------------------------

#[derive(Clone, Copy)]
enum Hook {
    None,
    Undef,
    Mul1,
}

fn w3_step(x: &Tensor, hook: Hook) -> Result<Out> {
    x.set_grad(None)?;
    let calls = Rc::new(std::cell::Cell::new(0usize));
    let mut y = x.clone();
    for i in 0..data::W3_OPS {
        y = if i % 2 == 0 {
            y.mul(data::W3_MUL)?
        } else {
            y.add(data::W3_ADD)?
        };
        let c = calls.clone();
        match hook {
            Hook::None => {}
            Hook::Undef => {
                y.register_hook(Rc::new(move |_g: &Tensor| -> Result<Option<Tensor>> {
                    c.set(c.get() + 1);
                    Ok(None)
                }))?;
            }
            Hook::Mul1 => {
                y.register_hook(Rc::new(move |g: &Tensor| -> Result<Option<Tensor>> {
                    c.set(c.get() + 1);
                    Ok(Some(g.mul(1.0f32)?))
                }))?;
            }
        }
    }
    let loss = y.sum()?;
    loss.backward()?;
    Ok(Out {
        loss: loss.item()?,
        grads: vec![grad_vec(x)?],
        calls: calls.get(),
    })
}

fn w1_clear_grads(layers: &[Vec<Neuron>]) -> Result<()> {
    for n in layers.iter().flatten() {
        for w in &n.w {
            w.set_grad(None)?;
        }
        n.b.set_grad(None)?;
    }
    Ok(())
}

/// Every parameter's gradient, in micrograd's order (weights, then bias).
fn w1_grads(layers: &[Vec<Neuron>]) -> Result<Vec<f32>> {
    let mut grads = vec![];
    for n in layers.iter().flatten() {
        for w in n.w.iter().chain([&n.b]) {
            grads.push(w.grad_raw().expect("grad").item()?);
        }
    }
    Ok(grads)
}

// ----- W1 on the deferred path: what the wasm's typed ops run ------------------

/// A neuron's parameters as handles (made once, as the JS peer's are).
struct NeuronHandles {
    w: Vec<Handle>,
    b: Handle,
}

fn w1_handles(layers: &[Vec<Neuron>]) -> Vec<Vec<NeuronHandles>> {
    let h = |t: &Tensor| Handle::Tensor(t.clone());
    layers
        .iter()
        .map(|l| {
            l.iter()
                .map(|n| NeuronHandles {
                    w: n.w.iter().map(h).collect(),
                    b: h(&n.b),
                })
                .collect()
        })
        .collect()
}

/// W1's step through `deferred::Handle`, the path the wasm's typed
/// `add`/`sub`/`mul`/`tanh` take (bench/PROFILE-history-2.md, tenth pass): the core's
/// own cost of that path with no wasm and no JS boundary, timed by phase
/// (build the graph, backward, drop the step's handles). Its loss and
/// gradients must equal the eager `w1_step`'s bit for bit.
fn w1_deferred_step(
    layers: &[Vec<Neuron>],
    params: &[Vec<NeuronHandles>],
    xs: &[f32],
    ys: &[f32],
) -> Result<(Out, [f64; 3])> {
    let t0 = Instant::now();
    // Every handle the step makes lives until its end, as in `hg.tidy`.
    let mut made: Vec<Handle> = vec![];
    let mut total: Option<Handle> = None;
    for s in 0..data::W1_SAMPLES {
        let mut x: Vec<Handle> = vec![];
        for (li, neurons) in params.iter().enumerate() {
            let last = li == params.len() - 1;
            let mut next = vec![];
            for n in neurons {
                // `act = b`, then `act = act + w[i] * x[i]`.
                let mut act: Option<Handle> = None;
                for (i, w) in n.w.iter().enumerate() {
                    let p = match x.get(i) {
                        Some(xi) => w.op(Op::Mul, Other::Handle(xi))?,
                        None => w.op(Op::Mul, Other::Number(xs[s * 2 + i]))?,
                    };
                    let sum = act
                        .as_ref()
                        .unwrap_or(&n.b)
                        .op(Op::Add, Other::Handle(&p))?;
                    made.push(p);
                    made.extend(act.replace(sum));
                }
                let act = act.expect("a neuron has inputs");
                next.push(if last {
                    act
                } else {
                    let y = act.op(Op::Tanh, Other::None)?;
                    made.push(act);
                    y
                });
            }
            made.append(&mut x);
            x = next;
        }
        let diff = x[0].op(Op::Sub, Other::Number(ys[s]))?;
        let sq = diff.op(Op::Mul, Other::Handle(&diff))?;
        made.append(&mut x);
        made.push(diff);
        total = Some(match total {
            Some(t) => {
                let sum = t.op(Op::Add, Other::Handle(&sq))?;
                made.extend([t, sq]);
                sum
            }
            None => sq,
        });
    }
    let total = total.expect("samples");
    let loss = total.op(Op::Mul, Other::Number(1.0 / data::W1_SAMPLES as f32))?;
    made.push(total);
    w1_clear_grads(layers)?;
    let t1 = Instant::now();
    loss.backward(false)?;
    let t2 = Instant::now();
    let loss_value = loss.item()?;
    // As the binding's end of `hg.tidy`: the deferred results' rows in one
    // `drop_rows` (crate/wasm/src/handle_code.rs), the rest one by one.
    made.push(loss);
    let rows: Vec<u32> = made
        .into_iter()
        .filter_map(|h| match h {
            Handle::Lazy(l) => Some(l.into_row()),
            Handle::Tensor(_) => None,
        })
        .collect();
    hookgrad_core::deferred::drop_rows(&rows);
    let t3 = Instant::now();
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
    let out = Out {
        loss: loss_value,
        grads: vec![w1_grads(layers)?],
        calls: 0,
    };
    Ok((out, [ms(t0, t1), ms(t1, t2), ms(t2, t3)]))
}

// ----- W4: the playground's 1,000-node graph --------------------------------------

fn w4_build(x: &Tensor, w: &Tensor) -> Result<Tensor> {
    x.set_grad(None)?;
    w.set_grad(None)?;
    let mut y = x.clone();
    for _ in 0..data::W4_ROUNDS {
        y = y.mul(w)?.add(x)?.tanh()?;
    }
    y.sum()
}

// ----- driver ---------------------------------------------------------------------

fn json_f32s(v: &[f32]) -> String {
    let mut s = String::from("[");
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{x:e}");
    }
    s.push(']');
    s
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let reps: usize = arg("--reps").and_then(|s| s.parse().ok()).unwrap_or(5);
    let warmup: usize = arg("--warmup").and_then(|s| s.parse().ok()).unwrap_or(1);
    let check = args.iter().any(|a| a == "--check");
    let only = arg("--only");
    let want = |w: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|x| w.starts_with(x)))
    };

    let w1s = w1_setup()?;
    let (x2, y2, p2) = w2_setup()?;
    let x3 = leaf(&[data::W3_N], &data::w3(), true)?;
    let (x4v, w4v) = data::w4();
    let (x4, w4) = (
        leaf(&[data::W4_N], &x4v, true)?,
        leaf(&[data::W4_N], &w4v, true)?,
    );

    type Run<'a> = Box<dyn Fn() -> Result<Out> + 'a>;
    let mut runs: Vec<(&str, Run)> = vec![
        ("w1", Box::new(|| w1_step(&w1s.0, &w1s.1, &w1s.2))),
        ("w2", Box::new(|| w2_step(&x2, &y2, &p2))),
        ("w3_none", Box::new(|| w3_step(&x3, Hook::None))),
        ("w3_undef", Box::new(|| w3_step(&x3, Hook::Undef))),
        ("w3_mul1", Box::new(|| w3_step(&x3, Hook::Mul1))),
    ];
    runs.retain(|(n, _)| want(n));

    let mut times: Vec<Vec<f64>> = vec![vec![]; runs.len()];
    let mut outs: Vec<Option<Out>> = (0..runs.len()).map(|_| None).collect();
    // W4 phases are timed separately on one graph per repetition.
    let do_w4 = want("w4");
    // W1 on the deferred path is checked against the eager step's bits.
    let bits = |o: &Out| {
        (
            o.loss.to_bits(),
            o.grads[0].iter().map(|g| g.to_bits()).collect::<Vec<_>>(),
        )
    };
    let do_w1d = want("w1_deferred");
    let w1d_eager = match do_w1d {
        true => Some(bits(&w1_step(&w1s.0, &w1s.1, &w1s.2)?)),
        false => None,
    };
    let w1d_params = w1_handles(&w1s.0);
    let mut w1d_times: [Vec<f64>; 3] = [vec![], vec![], vec![]];
    let mut w4_times: [Vec<f64>; 3] = [vec![], vec![], vec![]];
    let mut w4_nodes = 0usize;
    let mut w4_events = 0usize;

    for rep in 0..warmup + reps {
        for (i, (_, run)) in runs.iter().enumerate() {
            let t0 = Instant::now();
            let out = run()?;
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            if rep >= warmup {
                times[i].push(ms);
            }
            outs[i] = Some(out);
        }
        if let Some(eager) = &w1d_eager {
            let (out, phases) = w1_deferred_step(&w1s.0, &w1d_params, &w1s.1, &w1s.2)?;
            // The same f32 operations in the same order as the eager step.
            if bits(&out) != *eager {
                return Err(hookgrad_core::Error::internal(
                    "W1 on the deferred path differs from the eager step",
                ));
            }
            if rep >= warmup {
                for (k, t) in phases.iter().enumerate() {
                    w1d_times[k].push(*t);
                }
            }
        }
        if do_w4 {
            let t0 = Instant::now();
            let y = w4_build(&x4, &w4)?;
            let t1 = Instant::now();
            let g = hookgrad_core::graph::graph(std::slice::from_ref(&y));
            let t2 = Instant::now();
            let (r, events) = hookgrad_core::trace::trace(|| y.backward());
            r?;
            let t3 = Instant::now();
            w4_nodes = g.nodes.len();
            w4_events = events.len();
            drop((g, events));
            if rep >= warmup {
                for (k, (a, b)) in [(t0, t1), (t1, t2), (t2, t3)].iter().enumerate() {
                    w4_times[k].push((*b - *a).as_secs_f64() * 1e3);
                }
            }
        }
    }

    let mut s = String::from("{");
    let mut first = true;
    for (i, (name, _)) in runs.iter().enumerate() {
        let Some(out) = &outs[i] else { continue };
        if !first {
            s.push(',');
        }
        first = false;
        let _ = write!(
            s,
            "\"{name}\":{{\"times\":{:?},\"loss\":{:e},\"calls\":{}",
            times[i], out.loss, out.calls
        );
        if check {
            let gs: Vec<String> = out.grads.iter().map(|g| json_f32s(g)).collect();
            let _ = write!(s, ",\"grads\":[{}]", gs.join(","));
        }
        s.push('}');
    }
    if do_w1d {
        if !first {
            s.push(',');
        }
        first = false;
        let _ = write!(
            s,
            "\"w1_deferred\":{{\"forward\":{:?},\"backward\":{:?},\"teardown\":{:?}}}",
            w1d_times[0], w1d_times[1], w1d_times[2]
        );
    }
    if do_w4 {
        if !first {
            s.push(',');
        }
        let _ = write!(
            s,
            "\"w4\":{{\"build\":{:?},\"graph\":{:?},\"trace\":{:?},\"nodes\":{w4_nodes},\"events\":{w4_events}}}",
            w4_times[0], w4_times[1], w4_times[2]
        );
    }
    s.push('}');
    println!("{s}");
    Ok(())
}
