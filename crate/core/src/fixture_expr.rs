//! The JS expressions of tests/fixtures/pytorch.json (`"js": "x.t().pow(3)"`,
//! `"hg.cat([a, b], 1)"`), parsed and run against the core, so `cargo test`
//! checks the same cases the Node suite runs against the built wasm. Only
//! the small grammar the fixtures use: identifiers, numbers, strings,
//! `true`/`false`, array and object literals, member access, calls, unary
//! minus and one-parameter arrow functions (`((c) => c.mul(c))(a)`). The JS
//! names map to the core's API as the binding maps them (crate/wasm).

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::ops::{join, loss};
use crate::tensor::{Tensor, TensorOptions};

#[derive(Clone, Debug)]
pub(crate) enum Expr {
    Num(f64),
    Str(String),
    Bool(bool),
    Ident(String),
    Array(Vec<Expr>),
    Object(Vec<(String, Expr)>),
    Member(Box<Expr>, String),
    Call(Box<Expr>, Vec<Expr>),
    Arrow(String, Box<Expr>),
    Neg(Box<Expr>),
}

/// A value while evaluating: a tensor, a plain JS value, a namespace
/// (`hg`, `hg.nn.functional`) or a bound method waiting for its call.
#[derive(Clone)]
pub(crate) enum Val {
    Tensor(Tensor),
    Num(f64),
    Str(String),
    Bool(bool),
    List(Vec<Val>),
    Object(Vec<(String, Val)>),
    Namespace(String),
    Method(Tensor, String),
    Function(String, Expr),
}

fn unsupported(what: impl std::fmt::Display) -> Error {
    Error::internal(format!("fixture expression: {what}"))
}

// ----- parsing ---------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Str(String),
    Ident(String),
    Punct(&'static str),
}

fn tokenize(src: &str) -> Result<Vec<Tok>> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || chars[i] == '.'
                    || ((chars[i] == '-' || chars[i] == '+') && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            toks.push(Tok::Num(
                text.parse()
                    .map_err(|_| unsupported(format!("number {text}")))?,
            ));
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            toks.push(Tok::Ident(chars[start..i].iter().collect()));
        } else if c == '\'' || c == '"' {
            let end = chars[i + 1..]
                .iter()
                .position(|&d| d == c)
                .ok_or_else(|| unsupported("unterminated string"))?;
            toks.push(Tok::Str(chars[i + 1..i + 1 + end].iter().collect()));
            i += end + 2;
        } else if c == '=' && chars.get(i + 1) == Some(&'>') {
            toks.push(Tok::Punct("=>"));
            i += 2;
        } else {
            let p = ["(", ")", "[", "]", "{", "}", ",", ".", ":", "-"]
                .into_iter()
                .find(|p| p.starts_with(c))
                .ok_or_else(|| unsupported(format!("character {c:?} in {src}")))?;
            toks.push(Tok::Punct(p));
            i += 1;
        }
    }
    Ok(toks)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }
    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.pos += 1;
            return true;
        }
        false
    }
    fn expect(&mut self, p: &str) -> Result<()> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(unsupported(format!("expected {p} at token {}", self.pos)))
        }
    }
    /// `a, b, c` up to `close` (a trailing comma allowed).
    fn list(&mut self, close: &str) -> Result<Vec<Expr>> {
        let mut items = Vec::new();
        while !self.eat(close) {
            items.push(self.expr()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(items)
    }
    fn expr(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                match self.next() {
                    Some(Tok::Ident(name)) => e = Expr::Member(Box::new(e), name),
                    t => return Err(unsupported(format!("member name {t:?}"))),
                }
            } else if self.eat("(") {
                e = Expr::Call(Box::new(e), self.list(")")?);
            } else {
                return Ok(e);
            }
        }
    }
    fn primary(&mut self) -> Result<Expr> {
        match self.next() {
            Some(Tok::Num(n)) => Ok(Expr::Num(n)),
            Some(Tok::Str(s)) => Ok(Expr::Str(s)),
            Some(Tok::Ident(s)) if s == "true" || s == "false" => Ok(Expr::Bool(s == "true")),
            Some(Tok::Ident(s)) => Ok(Expr::Ident(s)),
            Some(Tok::Punct("-")) => Ok(Expr::Neg(Box::new(self.expr()?))),
            Some(Tok::Punct("[")) => Ok(Expr::Array(self.list("]")?)),
            Some(Tok::Punct("{")) => {
                let mut fields = Vec::new();
                while !self.eat("}") {
                    let Some(Tok::Ident(key)) = self.next() else {
                        return Err(unsupported("object key"));
                    };
                    self.expect(":")?;
                    fields.push((key, self.expr()?));
                    if !self.eat(",") {
                        self.expect("}")?;
                        break;
                    }
                }
                Ok(Expr::Object(fields))
            }
            Some(Tok::Punct("(")) => {
                // `(c) => body` or a parenthesized expression.
                if let (Some(Tok::Ident(p)), Some(Tok::Punct(")")), Some(Tok::Punct("=>"))) = (
                    self.toks.get(self.pos).cloned(),
                    self.toks.get(self.pos + 1).cloned(),
                    self.toks.get(self.pos + 2).cloned(),
                ) {
                    self.pos += 3;
                    return Ok(Expr::Arrow(p, Box::new(self.expr()?)));
                }
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            t => Err(unsupported(format!("token {t:?}"))),
        }
    }
}

pub(crate) fn parse(src: &str) -> Result<Expr> {
    let mut p = Parser {
        toks: tokenize(src)?,
        pos: 0,
    };
    let e = p.expr()?;
    if p.pos != p.toks.len() {
        return Err(unsupported(format!("trailing tokens in {src}")));
    }
    Ok(e)
}

// ----- evaluation ------------------------------------------------------------

/// Nested numbers as a tensor (`hg.tensor(data)`, a `gradient`).
pub(crate) fn tensor_from(v: &Val, requires_grad: bool) -> Result<Tensor> {
    fn walk(v: &Val, depth: usize, shape: &mut Vec<usize>, out: &mut Vec<f32>) -> Result<()> {
        match v {
            Val::Num(n) => {
                out.push(*n as f32);
                Ok(())
            }
            Val::List(items) => {
                if shape.len() == depth {
                    shape.push(items.len());
                }
                items
                    .iter()
                    .try_for_each(|i| walk(i, depth + 1, shape, out))
            }
            _ => Err(unsupported("tensor data")),
        }
    }
    let (mut shape, mut values) = (Vec::new(), Vec::new());
    walk(v, 0, &mut shape, &mut values)?;
    let opts = TensorOptions {
        requires_grad,
        name: None,
    };
    Tensor::from_vec(&shape, values, &opts)
}

pub(crate) fn from_json(j: &serde_json::Value) -> Val {
    match j {
        serde_json::Value::Array(a) => Val::List(a.iter().map(from_json).collect()),
        serde_json::Value::Number(n) => Val::Num(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::Bool(b) => Val::Bool(*b),
        serde_json::Value::String(s) => Val::Str(s.clone()),
        _ => Val::Object(Vec::new()),
    }
}

pub(crate) fn eval(e: &Expr, env: &HashMap<String, Val>) -> Result<Val> {
    Ok(match e {
        Expr::Num(n) => Val::Num(*n),
        Expr::Str(s) => Val::Str(s.clone()),
        Expr::Bool(b) => Val::Bool(*b),
        Expr::Ident(name) if name == "hg" => Val::Namespace("hg".into()),
        Expr::Ident(name) => env
            .get(name)
            .cloned()
            .ok_or_else(|| unsupported(format!("unknown name {name}")))?,
        Expr::Neg(inner) => match eval(inner, env)? {
            Val::Num(n) => Val::Num(-n),
            _ => return Err(unsupported("minus of a non-number")),
        },
        Expr::Array(items) => Val::List(items.iter().map(|i| eval(i, env)).collect::<Result<_>>()?),
        Expr::Object(fields) => Val::Object(
            fields
                .iter()
                .map(|(k, v)| Ok((k.clone(), eval(v, env)?)))
                .collect::<Result<_>>()?,
        ),
        Expr::Arrow(p, body) => Val::Function(p.clone(), (**body).clone()),
        Expr::Member(obj, name) => match eval(obj, env)? {
            Val::Namespace(ns) => Val::Namespace(format!("{ns}.{name}")),
            Val::Tensor(t) => Val::Method(t, name.clone()),
            _ => return Err(unsupported(format!("member {name}"))),
        },
        Expr::Call(callee, args) => {
            let f = eval(callee, env)?;
            let args: Vec<Val> = args.iter().map(|a| eval(a, env)).collect::<Result<_>>()?;
            match f {
                Val::Method(t, name) => Val::Tensor(method(&t, &name, &args)?),
                Val::Namespace(path) => Val::Tensor(function(&path, &args)?),
                Val::Function(p, body) => {
                    let mut inner = env.clone();
                    inner.insert(p, args.into_iter().next().unwrap_or(Val::Bool(false)));
                    eval(&body, &inner)?
                }
                _ => return Err(unsupported("call of a non-function")),
            }
        }
    })
}

fn num(args: &[Val], i: usize) -> Option<f64> {
    match args.get(i) {
        Some(Val::Num(n)) => Some(*n),
        _ => None,
    }
}

fn int(args: &[Val], i: usize) -> Result<i64> {
    num(args, i)
        .map(|n| n as i64)
        .ok_or_else(|| unsupported(format!("argument {i} is not a number")))
}

fn ints(v: Option<&Val>) -> Result<Vec<i64>> {
    match v {
        Some(Val::List(items)) => items
            .iter()
            .map(|i| int(std::slice::from_ref(i), 0))
            .collect(),
        Some(Val::Num(n)) => Ok(vec![*n as i64]),
        _ => Err(unsupported("a list of integers")),
    }
}

fn flag(args: &[Val], i: usize) -> bool {
    matches!(args.get(i), Some(Val::Bool(true)))
}

fn tensor(v: Option<&Val>) -> Result<Tensor> {
    match v {
        Some(Val::Tensor(t)) => Ok(t.clone()),
        _ => Err(unsupported("a tensor argument")),
    }
}

fn operand(args: &[Val]) -> Result<crate::Operand> {
    match args.first() {
        Some(Val::Tensor(t)) => Ok(t.into()),
        Some(Val::Num(n)) => Ok((*n as f32).into()),
        _ => Err(unsupported("an operand")),
    }
}

/// The JS method `name` of a tensor, as crate/wasm maps it onto the core.
fn method(t: &Tensor, name: &str, args: &[Val]) -> Result<Tensor> {
    let dim_or_all = |one: fn(&Tensor, i64, bool) -> Result<Tensor>,
                      all: fn(&Tensor) -> Result<Tensor>| match num(args, 0) {
        Some(d) => one(t, d as i64, flag(args, 1)),
        None => all(t),
    };
    match name {
        "add" => t.add(operand(args)?),
        "sub" => t.sub(operand(args)?),
        "mul" => t.mul(operand(args)?),
        "div" => t.div(operand(args)?),
        "add_" => t.add_(operand(args)?),
        "sub_" => t.sub_(operand(args)?),
        "mul_" => t.mul_(operand(args)?),
        "div_" => t.div_(operand(args)?),
        "zero_" => t.zero_(),
        "pow" => t.pow(num(args, 0).ok_or_else(|| unsupported("pow exponent"))? as f32),
        "neg" => t.neg(),
        "exp" => t.exp(),
        "log" => t.log(),
        "sin" => t.sin(),
        "cos" => t.cos(),
        "tanh" => t.tanh(),
        "sigmoid" => t.sigmoid(),
        "relu" => t.relu(),
        "abs" => t.abs(),
        "sqrt" => t.sqrt(),
        "clone" => t.clone_op(),
        "t" => t.t(),
        "softmax" => t.softmax(int(args, 0)?),
        "logSoftmax" => t.log_softmax(int(args, 0)?),
        "unsqueeze" => t.unsqueeze(int(args, 0)?),
        "squeeze" => t.squeeze(num(args, 0).map(|d| d as i64)),
        "expand" => t.expand(&ints(args.first())?),
        "reshape" => t.reshape(&ints(args.first())?),
        "transpose" => t.transpose(int(args, 0)?, int(args, 1)?),
        "matmul" => t.matmul(&tensor(args.first())?),
        "sum" => dim_or_all(Tensor::sum_dim, Tensor::sum),
        "mean" => dim_or_all(Tensor::mean_dim, Tensor::mean),
        _ => Err(unsupported(format!("method {name}"))),
    }
}

fn reduction(opts: Option<&Val>) -> Result<loss::Reduction> {
    let found = match opts {
        Some(Val::Object(fields)) => fields.iter().find(|(k, _)| k == "reduction"),
        _ => None,
    };
    match found {
        Some((_, Val::Str(s))) => loss::Reduction::parse(s),
        _ => Ok(loss::Reduction::Mean),
    }
}

/// `hg.<path>(args)`.
fn function(path: &str, args: &[Val]) -> Result<Tensor> {
    let list = |v: Option<&Val>| -> Result<Vec<Tensor>> {
        match v {
            Some(Val::List(items)) => items.iter().map(|i| tensor(Some(i))).collect(),
            _ => Err(unsupported("a list of tensors")),
        }
    };
    let dim = || num(args, 1).map_or(0, |d| d as i64);
    let requires_grad = match args.get(1) {
        Some(Val::Object(fields)) => fields
            .iter()
            .any(|(k, v)| k == "requiresGrad" && matches!(v, Val::Bool(true))),
        _ => false,
    };
    let filled = |value: f32| -> Result<Tensor> {
        let shape: Vec<usize> = ints(args.first())?
            .into_iter()
            .map(|d| d as usize)
            .collect();
        Tensor::full(&shape, value, &TensorOptions::default())
    };
    match path {
        "hg.tensor" => tensor_from(
            args.first().ok_or_else(|| unsupported("tensor data"))?,
            requires_grad,
        ),
        "hg.ones" => filled(1.0),
        "hg.zeros" => filled(0.0),
        "hg.cat" => join::cat(&list(args.first())?, dim()),
        "hg.stack" => join::stack(&list(args.first())?, dim()),
        "hg.nn.functional.mseLoss" => loss::mse_loss(
            &tensor(args.first())?,
            &tensor(args.get(1))?,
            reduction(args.get(2))?,
        ),
        "hg.nn.functional.crossEntropy" => loss::cross_entropy(
            &tensor(args.first())?,
            &ints(args.get(1))?,
            reduction(args.get(2))?,
        ),
        _ => Err(unsupported(format!("function {path}"))),
    }
}
