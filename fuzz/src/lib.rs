//! The fuzz harness: a byte string is read as a small program over
//! hookgrad's core — leaves, ops with broadcasting and bad shapes, in-place
//! ops, tensor/node/post-accumulate hooks (scaling, wrong shapes, wrong
//! counts, errors, re-entrant backward, inspection mid-pass), retain_grad,
//! backward / grad with odd gradients and options, graph(), trace(),
//! semantics switches. Errors are expected and ignored; what must never
//! happen is a panic (a trap on wasm32) or a broken invariant, checked with
//! `assert!`: after a successful backward every leaf's `.grad` has the
//! leaf's shape, and every tensor's data has as many values as its shape.

pub mod deferred_diff;
mod hook;

use hook::Hook;
use hookgrad_core::context::{self, Semantics};
use hookgrad_core::error::Result;
use hookgrad_core::hooks::RemovableHandle;
use hookgrad_core::{engine, graph, trace, Operand, Tensor, TensorOptions};

const MAX_POOL: usize = 24;
const MAX_STEPS: usize = 96;

/// Runs one program (ignoring its errors); panics on a broken invariant.
/// The same bytes are also a program of 0-d ops run with and without the
/// deferred rows, which must be indistinguishable (`deferred_diff`).
pub fn run(data: &[u8]) {
    let _ = interpret(data, None);
    context::set_semantics(Semantics::PyTorch2);
    deferred_diff::check(data);
}

/// The program a byte string encodes, one step per line (for crash reports).
pub fn describe(data: &[u8]) -> String {
    let mut log = Vec::new();
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        interpret(data, Some(&mut log))
    }));
    context::set_semantics(Semantics::PyTorch2);
    log.join("\n")
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
    fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    fn below(&mut self, n: usize) -> usize {
        self.u8() as usize % n.max(1)
    }
    fn bit(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    fn small_i64(&mut self) -> i64 {
        (self.u8() as i8 as i64) % 5
    }
    fn value(&mut self) -> f32 {
        match self.u8() {
            255 => f32::NAN,
            254 => f32::INFINITY,
            253 => 0.0,
            b => (b as i8) as f32 / 32.0,
        }
    }
    fn scalar(&mut self) -> f32 {
        [0.5, 2.0, -1.0, 0.0, 3.0, -0.25, 1e-3, 1e3][self.below(8)]
    }
}

fn check_tensor(t: &Tensor) {
    if let Ok(d) = t.data() {
        assert_eq!(
            d.len(),
            t.shape().iter().product::<usize>(),
            "data length != shape"
        );
    }
}

// ---------------------------------------------------------------- program

fn interpret(data: &[u8], mut log: Option<&mut Vec<String>>) -> Result<()> {
    let mut r = Reader { data, pos: 0 };
    let mut pool: Vec<Tensor> = Vec::new();
    let mut handles: Vec<RemovableHandle> = Vec::new();
    let mut say = |s: String| {
        if let Some(l) = log.as_deref_mut() {
            l.push(s);
        }
    };
    for _ in 0..MAX_STEPS {
        if r.done() {
            break;
        }
        let op = r.below(24);
        let pick = |r: &mut Reader, pool: &Vec<Tensor>| -> Option<Tensor> {
            if pool.is_empty() {
                None
            } else {
                Some(pool[r.below(pool.len())].clone())
            }
        };
        let result: Result<Option<Tensor>> = (|| {
            match op {
                0 | 1 => {
                    let rank = r.below(4);
                    let shape: Vec<usize> = (0..rank)
                        .map(|_| [1, 2, 3, 4, 0, 1, 2, 3][r.below(8)])
                        .collect();
                    let n: usize = shape.iter().product();
                    let values: Vec<f32> = (0..n).map(|_| r.value()).collect();
                    let rg = r.bit() || op == 1;
                    say(format!("leaf {shape:?} requires_grad={rg}"));
                    Tensor::from_vec(
                        &shape,
                        values,
                        &TensorOptions {
                            requires_grad: rg,
                            name: None,
                        },
                    )
                    .map(Some)
                }
                2..=5 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let b: Operand = if r.bit() {
                        match pick(&mut r, &pool) {
                            Some(t) => Operand::Tensor(t),
                            None => Operand::Scalar(1.0),
                        }
                    } else {
                        Operand::Scalar(r.scalar())
                    };
                    say(format!("binary {op} on {:?}", a.shape()));
                    match op {
                        2 => a.add(b),
                        3 => a.sub(b),
                        4 => a.mul(b),
                        _ => a.div(b),
                    }
                    .map(Some)
                }
                6 | 7 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let k = r.below(9);
                    say(format!("unary {k} on {:?}", a.shape()));
                    match k {
                        0 => a.neg(),
                        1 => a.exp(),
                        2 => a.log(),
                        3 => a.sin(),
                        4 => a.cos(),
                        5 => a.tanh(),
                        6 => a.sigmoid(),
                        7 => a.relu(),
                        _ => a.pow([2.0, 0.0, -1.0, 0.5, 3.0, f32::NAN][r.below(6)]),
                    }
                    .map(Some)
                }
                8 => {
                    let (Some(a), Some(b)) = (pick(&mut r, &pool), pick(&mut r, &pool)) else {
                        return Ok(None);
                    };
                    say(format!("matmul {:?} {:?}", a.shape(), b.shape()));
                    a.matmul(&b).map(Some)
                }
                9 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let mean = r.bit();
                    let out = if r.bit() {
                        if mean {
                            a.mean()
                        } else {
                            a.sum()
                        }
                    } else {
                        let d = r.small_i64();
                        let keep = r.bit();
                        if mean {
                            a.mean_dim(d, keep)
                        } else {
                            a.sum_dim(d, keep)
                        }
                    };
                    say(format!("reduce mean={mean} on {:?}", a.shape()));
                    out.map(Some)
                }
                10 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let rank = r.below(4);
                    let shape: Vec<i64> = (0..rank)
                        .map(|_| [1, 2, 3, 4, 6, -1, 0, -2][r.below(8)])
                        .collect();
                    say(format!("reshape {:?} -> {shape:?}", a.shape()));
                    a.reshape(&shape).map(Some)
                }
                11 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let (d0, d1) = (r.small_i64(), r.small_i64());
                    say(format!("transpose {:?} ({d0}, {d1}) / t()", a.shape()));
                    if r.bit() { a.transpose(d0, d1) } else { a.t() }.map(Some)
                }
                12 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let k = r.below(5);
                    let b: Operand = match pick(&mut r, &pool) {
                        Some(t) if r.bit() => Operand::Tensor(t),
                        _ => Operand::Scalar(r.scalar()),
                    };
                    say(format!("in-place {k} on {:?}", a.shape()));
                    let out = match k {
                        0 => a.add_(b),
                        1 => a.sub_(b),
                        2 => a.mul_(b),
                        3 => a.div_(b),
                        _ => a.zero_(),
                    };
                    if r.bit() {
                        context::no_grad(|| a.add_(0.5f32)).map(|_| ())?;
                    }
                    out.map(Some)
                }
                13 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let h = Hook::new(r.u8(), r.scalar());
                    say(format!(
                        "tensor hook kind {} on {:?}",
                        h.kind % 8,
                        a.shape()
                    ));
                    handles.push(a.register_hook(h)?);
                    Ok(None)
                }
                14 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    say(format!("retain_grad on {:?}", a.shape()));
                    a.retain_grad().map(|_| None)
                }
                15 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let h = Hook::new(r.u8(), 1.0);
                    say(format!("post-accumulate hook kind {}", h.kind % 3));
                    handles.push(a.register_post_accumulate_grad_hook(h)?);
                    Ok(None)
                }
                16 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let Some(node) = a.grad_fn() else {
                        return Ok(None);
                    };
                    let h = Hook::new(r.u8(), r.scalar());
                    let pre = r.bit();
                    say(format!(
                        "node {} hook kind {} on {}",
                        if pre { "pre" } else { "post" },
                        h.kind % 6,
                        node.name
                    ));
                    handles.push(if pre {
                        node.register_prehook(h)
                    } else {
                        node.register_hook(h)
                    });
                    Ok(None)
                }
                17 | 18 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let gradient = match r.below(4) {
                        0 => None,
                        1 => Some(Tensor::from_vec(
                            &a.shape(),
                            vec![1.0; a.numel()],
                            &TensorOptions::default(),
                        )?),
                        2 => Some(Tensor::scalar(2.0)),
                        _ => Some(Tensor::from_vec(
                            &[3],
                            vec![1.0; 3],
                            &TensorOptions::default(),
                        )?),
                    };
                    let retain = r.bit();
                    let inputs: Option<Vec<Tensor>> = if r.below(4) == 0 {
                        pick(&mut r, &pool).map(|t| vec![t])
                    } else {
                        None
                    };
                    let traced = op == 18;
                    say(format!(
                        "backward of {:?} retain={retain} traced={traced} inputs={}",
                        a.shape(),
                        inputs.is_some()
                    ));
                    let res = if traced {
                        trace::trace(|| a.backward_with(gradient, retain, inputs.as_deref())).0
                    } else {
                        a.backward_with(gradient, retain, inputs.as_deref())
                    };
                    if res.is_ok() {
                        for t in &pool {
                            if let Some(g) = t.grad_raw() {
                                assert_eq!(
                                    g.shape(),
                                    t.shape(),
                                    "after backward: .grad shape != tensor shape"
                                );
                                check_tensor(&g);
                            }
                        }
                    }
                    res.map(|_| None)
                }
                19 => {
                    let (Some(a), Some(b)) = (pick(&mut r, &pool), pick(&mut r, &pool)) else {
                        return Ok(None);
                    };
                    let retain = r.bit();
                    let unused = r.bit();
                    say(format!("grad({:?} wrt {:?})", a.shape(), b.shape()));
                    let gs = engine::grad(
                        std::slice::from_ref(&a),
                        std::slice::from_ref(&b),
                        vec![None],
                        retain,
                        unused,
                    )?;
                    for g in gs.iter().flatten() {
                        assert_eq!(g.shape(), b.shape(), "grad(): result shape != input shape");
                    }
                    Ok(None)
                }
                20 => {
                    say("graph() + trace(graph())".into());
                    let roots: Vec<Tensor> = pool.iter().step_by(2).cloned().collect();
                    let info = graph::graph(&roots);
                    let _ = (info.tensors.len(), info.nodes.len());
                    Ok(None)
                }
                21 => {
                    let Some(a) = pick(&mut r, &pool) else {
                        return Ok(None);
                    };
                    let k = r.below(7);
                    say(format!("misc {k} on {:?}", a.shape()));
                    match k {
                        0 => Ok(Some(a.detach())),
                        1 => a.clone_op().map(Some),
                        2 => a.set_requires_grad(r.bit()).map(|_| None),
                        3 => {
                            let g =
                                Tensor::from_vec(&[2], vec![1.0, 1.0], &TensorOptions::default())?;
                            a.set_grad(if r.bit() { Some(g) } else { None })
                                .map(|_| None)
                        }
                        4 => a.item().map(|_| None),
                        5 => {
                            let _ = a.repr();
                            Ok(None)
                        }
                        _ => {
                            if !handles.is_empty() {
                                let i = r.below(handles.len());
                                handles[i].remove();
                                handles[i].remove();
                            }
                            Ok(None)
                        }
                    }
                }
                22 => {
                    let s = if r.bit() {
                        Semantics::PyTorch1
                    } else {
                        Semantics::PyTorch2
                    };
                    say(format!("semantics {}", s.name()));
                    context::set_semantics(s);
                    Ok(None)
                }
                _ => {
                    // Drop a tensor from the pool: its graph may be freed mid-program.
                    if !pool.is_empty() {
                        let i = r.below(pool.len());
                        say("drop a tensor".into());
                        pool.swap_remove(i);
                    }
                    Ok(None)
                }
            }
        })();
        match result {
            Ok(Some(t)) => {
                check_tensor(&t);
                if pool.len() >= MAX_POOL {
                    let i = r.below(pool.len());
                    pool[i] = t;
                } else {
                    pool.push(t);
                }
            }
            Ok(None) => {}
            Err(e) => {
                assert!(!e.message().is_empty(), "empty error message");
                say(format!("  -> error: {}", e.message()));
            }
        }
        assert!(
            context::is_grad_enabled(),
            "grad mode left off after a step"
        );
    }
    Ok(())
}
