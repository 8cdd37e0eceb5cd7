//! Fixed and scientific notation of an f64 from its exact decimal expansion,
//! rounded half to even: the text `format!("{:.4}")` / `format!("{:.4e}")`
//! give (and Python's `'{:.4f}'` / `'{:.4e}'`), without core's float
//! formatting (Grisu, Dragon and their tables: ~11 KB of wasm, issue 10 W5).
//! Printing is cold, so the expansion is built plainly: a finite f64 is
//! m·2^e, i.e. the integer m·2^e, or m·5^-e scaled by 10^e.
//!
//! Rust's `{}` of an f64 (shortest round-trip digits, never an exponent) is
//! [`plain`]: the shortest digits come from elsewhere (the wasm binding asks
//! JS's `String(n)`), this places the point and breaks ties as Rust does.

/// The exact value as decimal digits (ASCII, most significant first, no
/// leading zeros; empty for zero) and how many of them follow the point.
struct Exact {
    digits: Vec<u8>,
    scale: usize,
}

const LIMB: u64 = 1_000_000_000;

fn exact(v: f64) -> Exact {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mut m, mut e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if m == 0 {
        return Exact {
            digits: Vec::new(),
            scale: 0,
        };
    }
    let shift = m.trailing_zeros();
    m >>= shift;
    e += shift as i32;
    // Base-10^9 limbs, least significant first.
    let mut limbs = vec![
        (m % LIMB) as u32,
        (m / LIMB % LIMB) as u32,
        (m / LIMB / LIMB) as u32,
    ];
    let (mut times, chunk, factor) = if e >= 0 {
        (e as u32, 30, 2u64)
    } else {
        (e.unsigned_abs(), 13, 5u64)
    };
    while times > 0 {
        let n = times.min(chunk);
        times -= n;
        let mul = factor.pow(n);
        let mut carry = 0u64;
        for l in limbs.iter_mut() {
            let x = u64::from(*l) * mul + carry;
            *l = (x % LIMB) as u32;
            carry = x / LIMB;
        }
        while carry > 0 {
            limbs.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
    }
    let mut digits = Vec::with_capacity(limbs.len() * 9);
    for l in limbs.iter().rev() {
        let mut chunk = [b'0'; 9];
        let mut x = *l;
        for d in chunk.iter_mut().rev() {
            *d = b'0' + (x % 10) as u8;
            x /= 10;
        }
        digits.extend_from_slice(&chunk);
    }
    let first = digits
        .iter()
        .position(|d| *d != b'0')
        .unwrap_or(digits.len());
    digits.drain(..first);
    Exact {
        digits,
        scale: if e < 0 { e.unsigned_abs() as usize } else { 0 },
    }
}

/// The first `keep` digits of `digits` (zeros appended past its end), rounded
/// half to even on what is dropped. May be one digit longer (a carry out of
/// 99…9); `keep` ≤ 0 drops everything.
fn round_to(digits: &[u8], keep: isize) -> Vec<u8> {
    let len = digits.len() as isize;
    if keep >= len {
        let mut out = digits.to_vec();
        out.resize(keep as usize, b'0');
        return out;
    }
    if keep < 0 {
        return Vec::new(); // below a tenth of the last kept place
    }
    let keep = keep as usize;
    let mut out = digits[..keep].to_vec();
    let first = digits[keep];
    let rest_zero = digits[keep + 1..].iter().all(|d| *d == b'0');
    let last_odd = out.last().is_some_and(|d| (d - b'0') % 2 == 1);
    if first > b'5' || (first == b'5' && (!rest_zero || last_odd)) {
        increment(&mut out);
    }
    out
}

/// Adds one in the last place; true when that carried out (99 → 100).
fn increment(digits: &mut Vec<u8>) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    digits.insert(0, b'1');
    true
}

fn sign(v: f64) -> &'static str {
    if v.is_sign_negative() {
        "-"
    } else {
        ""
    }
}

/// Appends ASCII digits (char by char: `String::from_utf8`'s validation
/// was most of this module's wasm).
fn push(out: &mut String, digits: &[u8]) {
    out.extend(digits.iter().map(|&d| char::from(d)));
}

/// `format!("{:.prec$}", v)` for a finite `v`.
pub fn fixed(v: f64, prec: usize) -> String {
    let x = exact(v);
    let keep = x.digits.len() as isize - x.scale as isize + prec as isize;
    let mut n = round_to(&x.digits, keep);
    if n.len() < prec + 1 {
        let pad = prec + 1 - n.len();
        n.splice(0..0, std::iter::repeat_n(b'0', pad));
    }
    let mut out = String::from(sign(v));
    let point = n.len() - prec;
    push(&mut out, &n[..point]);
    if prec > 0 {
        out.push('.');
        push(&mut out, &n[point..]);
    }
    out
}

/// Python's `'{:.{prec}e}'.format(v)` for a finite `v`: Rust's `{:.prec$e}`
/// with the exponent signed and at least two digits (`1.0000e-05`).
pub fn sci(v: f64, prec: usize) -> String {
    let x = exact(v);
    let mut exp = x.digits.len() as isize - 1 - x.scale as isize;
    let mut n = if x.digits.is_empty() {
        exp = 0;
        vec![b'0'; prec + 1]
    } else {
        round_to(&x.digits, prec as isize + 1)
    };
    if n.len() > prec + 1 {
        n.truncate(prec + 1);
        exp += 1;
    }
    let mut out = String::from(sign(v));
    out.push(char::from(n[0]));
    if prec > 0 {
        out.push('.');
        push(&mut out, &n[1..]);
    }
    out.push_str(if exp < 0 { "e-" } else { "e+" });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
    out
}

/// Rust's `format!("{}", v)` from `shortest`, the ECMAScript `String(|v|)`
/// (`Number::toString`: shortest round-trip digits, `1e+21`, `1.5e-7`).
/// Both print the shortest digits closest to `v`; when `v` lies exactly
/// halfway between two such candidates, ECMAScript takes the even one and
/// Rust the upper one (checked on 3 million doubles): that case is found
/// from `v`'s exact expansion.
pub fn plain(v: f64, shortest: &str) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    let mut out = String::from(sign(v));
    if v.is_infinite() {
        out.push_str("inf");
        return out;
    }
    if v == 0.0 {
        out.push('0');
        return out;
    }
    let (mant, exp) = shortest.split_once('e').unwrap_or((shortest, "0"));
    // The exponent's digits by hand (`str::parse` is more code than this).
    let exp = exp.bytes().fold(0isize, |e, c| match c {
        b'0'..=b'9' => e * 10 + isize::from(c - b'0'),
        _ => e,
    }) * if exp.starts_with('-') { -1 } else { 1 };
    let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    let mut point = mant.find('.').unwrap_or(mant.len()) as isize + exp;
    let zeros = digits.iter().take_while(|d| **d == b'0').count();
    digits.drain(..zeros);
    point -= zeros as isize;
    let x = exact(v);
    let tie = x.digits.len() == digits.len() + 1
        && x.digits.len() as isize - x.scale as isize == point
        && x.digits.starts_with(&digits)
        && x.digits.last() == Some(&b'5');
    if tie && increment(&mut digits) {
        point += 1;
    }
    let len = digits.len() as isize;
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs()));
        push(&mut out, &digits);
    } else if point >= len {
        push(&mut out, &digits);
        out.extend(std::iter::repeat_n('0', (point - len) as usize));
    } else {
        let (int, frac) = digits.split_at(point as usize);
        push(&mut out, int);
        out.push('.');
        push(&mut out, frac);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rust's formatting (what repr used before) with Python's exponent.
    fn reference_sci(v: f64, prec: usize) -> String {
        let s = format!("{:.*e}", prec, v);
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        format!("{mant}e{sign}{digits:0>2}")
    }

    fn check(v: f64) {
        for prec in [0, 4] {
            assert_eq!(
                fixed(v, prec),
                format!("{:.*}", prec, v),
                "fixed {prec} of {v:e}"
            );
            assert_eq!(sci(v, prec), reference_sci(v, prec), "sci {prec} of {v:e}");
        }
    }

    #[test]
    fn matches_rust_formatting_on_ties_and_edges() {
        // Exact ties round half to even ('{:.4f}'.format(0.03125) == '0.0312').
        assert_eq!(fixed(0.03125, 4), "0.0312");
        assert_eq!(fixed(0.09375, 4), "0.0938");
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(3.5, 0), "4");
        assert_eq!(fixed(-0.5, 0), "-0");
        assert_eq!(sci(1.00005, 4), reference_sci(1.00005, 4));
        assert_eq!(sci(1e-5, 4), "1.0000e-05");
        for v in [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            9.99995,
            99999.5,
            0.00005,
            0.00015,
            0.03125,
            -0.03125,
            1e8,
            1e-45,
            1.4e-45,
            3.4028235e38,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            12345.678,
            0.1,
            1.0 / 3.0,
            123456789.0,
            9.5,
            10.5,
            0.95,
            0.995,
        ] {
            check(v);
            check(-v);
        }
        // Every tie at 4 places and at 5 significant digits of small dyadics.
        for k in -4000..4000 {
            check(f64::from(k) / 32.0);
            check(f64::from(k) / 2.0);
            check(f64::from(k) * 0.5e-4);
        }
    }

    /// ECMAScript's `String(n)` for the cases below (from Node).
    #[test]
    #[allow(clippy::excessive_precision)] // exact binary values: the ties
    fn plain_matches_rust_display() {
        for (v, js) in [
            (1.5, "1.5"),
            (-1.5, "1.5"),
            (1e21, "1e+21"),
            (1.2345e22, "1.2345e+22"),
            (1e-7, "1e-7"),
            (-1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (123.0, "123"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
            (-750.221_740_722_656_25, "750.2217407226562"), // a tie: Rust takes ...63
            (883_118_878_962_285.25, "883118878962285.2"),
            (0.1, "0.1"),
            (f64::MAX, "1.7976931348623157e+308"),
        ] {
            assert_eq!(plain(v, js), format!("{v}"), "{js}");
        }
        assert_eq!(plain(-0.0, "0"), "-0");
        assert_eq!(plain(0.0, "0"), "0");
        assert_eq!(plain(f64::NAN, "NaN"), "NaN");
        assert_eq!(plain(f64::NEG_INFINITY, "Infinity"), "-inf");
        assert_eq!(plain(f64::INFINITY, "Infinity"), "inf");
    }

    #[test]
    fn matches_rust_formatting_on_random_f32() {
        // f32 values (what tensors hold) across their whole range.
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..40_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let f = f32::from_bits(s as u32);
            if f.is_finite() {
                check(f64::from(f));
            }
            let g = f32::from_bits((s >> 32) as u32 & 0x47ff_ffff); // |g| < 131072
            if g.is_finite() {
                check(f64::from(g));
            }
        }
    }
}
