//! The floor of a wasm scalar autograd with one JS handle per op (issue 10,
//! W1): an arena of nodes in creation order (a valid topological order), no
//! semantics beyond micrograd's — no ids, names, hooks, version counters or
//! graph objects. `run.mjs` times it on W1 beside hookgrad and the plain-JS
//! micrograd: what a wasm engine with a per-op JS boundary can cost at best.
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[derive(Clone, Copy)]
struct N {
    data: f32,
    grad: f32,
    op: u8,
    a: u32,
    b: u32,
    k: f32,
}

const LEAF: u8 = 0;
const ADD: u8 = 1;
const MUL: u8 = 2;
const ADDK: u8 = 3;
const MULK: u8 = 4;
const TANH: u8 = 5;

thread_local!(static ARENA: RefCell<Vec<N>> = const { RefCell::new(Vec::new()) });

fn push(op: u8, data: f32, a: u32, b: u32, k: f32) -> u32 {
    ARENA.with(|v| {
        let mut v = v.borrow_mut();
        v.push(N {
            data,
            grad: 0.0,
            op,
            a,
            b,
            k,
        });
        (v.len() - 1) as u32
    })
}

fn data(i: u32) -> f32 {
    ARENA.with(|v| v.borrow().get(i as usize).map_or(f32::NAN, |n| n.data))
}

#[wasm_bindgen]
pub fn leaf(v: f32) -> u32 {
    push(LEAF, v, 0, 0, 0.0)
}
#[wasm_bindgen]
pub fn add(x: u32, y: u32) -> u32 {
    push(ADD, data(x) + data(y), x, y, 0.0)
}
#[wasm_bindgen]
pub fn mul(x: u32, y: u32) -> u32 {
    push(MUL, data(x) * data(y), x, y, 0.0)
}
#[wasm_bindgen]
pub fn addk(x: u32, k: f32) -> u32 {
    push(ADDK, data(x) + k, x, 0, k)
}
#[wasm_bindgen]
pub fn mulk(x: u32, k: f32) -> u32 {
    push(MULK, data(x) * k, x, 0, k)
}
#[wasm_bindgen]
pub fn tanh(x: u32) -> u32 {
    push(TANH, data(x).tanh(), x, 0, 0.0)
}
#[wasm_bindgen]
pub fn value(i: u32) -> f32 {
    data(i)
}
#[wasm_bindgen]
pub fn grad(i: u32) -> f32 {
    ARENA.with(|v| v.borrow().get(i as usize).map_or(f32::NAN, |n| n.grad))
}
#[wasm_bindgen]
pub fn zero_grad(i: u32) {
    ARENA.with(|v| {
        if let Some(n) = v.borrow_mut().get_mut(i as usize) {
            n.grad = 0.0;
        }
    })
}
/// Drops every node after the first `keep` (the step's graph; the parameters stay).
#[wasm_bindgen]
pub fn truncate(keep: u32) {
    ARENA.with(|v| v.borrow_mut().truncate(keep as usize))
}
#[wasm_bindgen]
pub fn backward(root: u32) {
    ARENA.with(|v| {
        let mut v = v.borrow_mut();
        let Some(r) = v.get_mut(root as usize) else {
            return;
        };
        r.grad = 1.0;
        for i in (0..=root as usize).rev() {
            let n = v[i];
            let (a, b, g) = (n.a as usize, n.b as usize, n.grad);
            match n.op {
                ADD => {
                    v[a].grad += g;
                    v[b].grad += g;
                }
                MUL => {
                    let (da, db) = (v[a].data, v[b].data);
                    v[a].grad += db * g;
                    v[b].grad += da * g;
                }
                ADDK => v[a].grad += g,
                MULK => v[a].grad += n.k * g,
                TANH => v[a].grad += (1.0 - n.data * n.data) * g,
                _ => {}
            }
        }
    })
}
