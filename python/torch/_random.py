"""PyTorch's CPU random numbers, bit for bit, in pure Python.

Ported from ATen (BSD-3-Clause, (c) PyTorch contributors): the mt19937 of
aten/src/ATen/core/MT19937RNGEngine.h, CPUGeneratorImpl.cpp, the transforms
of core/TransformationHelper.h and DistributionsHelper.h, and the CPU kernels
of native/cpu/DistributionTemplates.h as the x86-64 wheels compile them.

Stdlib only, imports nothing from ``torch``: the shim calls it, the tests load
it by path.  Results are flat row-major lists; a float32 element is the Python
float of that float32.

What "as compiled" means here, checked against the disassembly of torch
2.15.0's libtorch_cpu.so and against the fixtures:
- The kernels PyTorch runs on any x86-64 with AVX2 (AVX-512 machines fall back
  to them: DistributionKernels has no AVX-512 build) let GCC contract
  ``x * (to - from) + from`` and ``val * std + mean`` into one FMA, so those
  round once, here too.
- float32 randn/normal_ of 16 or more elements runs avx_mathfun.h's Cephes
  polynomials for log and sincos, with the FMAs GCC formed in them; it is
  emulated lane by lane in float32 below.  Machines without AVX2 (and arm64
  builds) compute those in libm instead, and differ in the last bit there.
- float64, and every normal_ of fewer than 16 elements, use libm's log, log1p,
  sin and cos, as Python's math module does.
"""

import math
import os
import struct
from array import array
from fractions import Fraction

__all__ = [
    "Generator", "default_generator", "rand", "randn", "uniform", "normal",
    "randint", "randperm", "linear_init", "kaiming_uniform",
]

# The seed c10 gives a Generator made without one (default_rng_seed_val).
# The process-wide default generator is instead seeded from /dev/urandom, so
# unseeded PyTorch is not reproducible; neither is this module.
DEFAULT_SEED = 67280421310721

_N, _M = 624, 397
_UPPER, _LOWER = 0x80000000, 0x7FFFFFFF
_MATRIX_A = 0x9908B0DF
_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF
_MASK24 = (1 << 24) - 1
_MASK53 = (1 << 53) - 1
_INV24 = 2.0 ** -24
_INV53 = 2.0 ** -53

# torch.get_rng_state(): CPUGeneratorImplState, little-endian, 5056 bytes
# (legacy POD: seed, left, seeded, next, state[624] as uint64, normal_x/y/rho,
# normal_is_valid; then next_float_normal_sample and its flag).
_STATE = struct.Struct("<QiiQ624Qdddi4xf?3x")


def _lanes(value, lo, hi):
    """value repeated in 64-bit lanes lo..hi-1 of one big int."""
    return int.from_bytes(struct.pack("<Q", value) * (hi - lo), "little") << (64 * lo)


# The 624 state words are handled as one big int with a word per 64-bit lane
# (32 bits of value, 32 of headroom for the shifts): a dozen big-int ops then
# do what a 624-step Python loop would, about 7x faster.
_BLOCK = struct.Struct("<624Q")
_ALL = _lanes(_M32, 0, _N)
_UP, _LOW, _ONE = _lanes(_UPPER, 0, _N - 1), _lanes(_LOWER, 0, _N - 1), _lanes(1, 0, _N - 1)
# next_state rewrites the block in place: words 0..226 read old words, 227..453
# read words 0..226 just rewritten, 454..622 read 227..395, 623 reads word 0.
_PART_A, _PART_B = _lanes(_M32, 0, _N - _M), _lanes(_M32, _N - _M, 2 * (_N - _M))
_PART_C = _lanes(_M32, 2 * (_N - _M), _N - 1)
_TEMPER_B, _TEMPER_C = _lanes(0x9D2C5680, 0, _N), _lanes(0xEFC60000, 0, _N)
_LAG = 64 * (_N - _M)


def _temper(big):
    t = (big ^ (big >> 11)) & _ALL
    t ^= (t << 7) & _TEMPER_B
    t ^= (t << 15) & _TEMPER_C
    t = (t ^ (t >> 18)) & _ALL
    return list(_BLOCK.unpack(t.to_bytes(_N * 8, "little")))


def _pack(words):
    return int.from_bytes(_BLOCK.pack(*words), "little")


def _next_block(words):
    """mt19937's next_state; returns the new state and its 624 outputs."""
    s = _pack(words)
    s1 = s >> 64
    f = (((s & _UP) | (s1 & _LOW)) >> 1) ^ ((s1 & _ONE) * _MATRIX_A)
    new = (f ^ (s >> (64 * _M))) & _PART_A
    new |= (f ^ (new << _LAG)) & _PART_B
    new |= (f ^ (new << _LAG)) & _PART_C
    x, y = words[_N - 1], new & _M32
    last = ((new >> (64 * (_M - 1))) & _M32) ^ (((x & _UPPER) | (y & _LOWER)) >> 1)
    new |= (last ^ (_MATRIX_A if y & 1 else 0)) << (64 * (_N - 1))
    return list(_BLOCK.unpack(new.to_bytes(_N * 8, "little"))), _temper(new)


class Generator:
    """at::CPUGeneratorImpl: mt19937 plus the cached second Box-Muller sample."""

    __slots__ = ("_seed", "_mt", "_out", "_left", "_next", "_next_double", "_next_float")

    def __init__(self, seed=DEFAULT_SEED):
        self.manual_seed(seed)

    def manual_seed(self, seed):
        seed = int(seed)
        # c10 unpacks the seed as a uint64, a negative one as its two's complement.
        if not -(1 << 63) <= seed <= _M64:
            raise ValueError("Overflow when unpacking long long")
        seed &= _M64
        mt = [seed & _M32]
        for j in range(1, _N):
            prev = mt[-1]
            mt.append((1812433253 * (prev ^ (prev >> 30)) + j) & _M32)
        self._seed, self._mt, self._out = seed, mt, None
        # left=1, next=0 as in mt19937_engine: the first draw twists the block.
        self._left, self._next = 1, 0
        self._next_double = self._next_float = None  # set_current_seed resets both
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def _take(self, k):
        """The next k 32-bit outputs; left/next end as after k engine calls."""
        res = []
        while k > 0:
            if self._left == 1:
                self._mt, self._out = _next_block(self._mt)
                # The engine sets left=624 after its decrement; 625 here
                # stands for that decrement still to come.
                self._left, self._next = _N + 1, 0
            n = min(k, self._left - 1)
            res += self._out[self._next:self._next + n]
            self._next += n
            self._left -= n
            k -= n
        return res

    def random32(self):
        return self._take(1)[0]

    def random64(self):
        # make64BitsFrom32Bits(first, second): the first draw is the high half.
        hi, lo = self._take(2)
        return (hi << 32) | lo

    def _take64(self, k):
        r = self._take(2 * k)
        return [(r[i] << 32) | r[i + 1] for i in range(0, 2 * k, 2)]

    def get_state(self):
        """The 5056 bytes torch.get_rng_state() / Generator.get_state() hold."""
        nd, nf = self._next_double, self._next_float
        return _STATE.pack(self._seed, self._left, 1, self._next, *self._mt,
                           0.0, 0.0 if nd is None else nd, 0.0, nd is not None,
                           0.0 if nf is None else nf, nf is not None)

    def set_state(self, state):
        state = bytes(state)
        if len(state) != _STATE.size:
            raise RuntimeError("Expected a CPUGeneratorImplState of size %d but found the "
                               "input RNG state size to be %d" % (_STATE.size, len(state)))
        v = _STATE.unpack(state)
        seed, left, seeded, nxt = v[:4]
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        self._seed, self._left, self._next = seed, left, nxt
        self._mt = [x & _M32 for x in v[4:4 + _N]]
        self._out = _temper(_pack(self._mt))
        self._next_double = v[4 + _N + 1] if v[4 + _N + 3] else None
        self._next_float = v[-2] if v[-1] else None
        return self


default_generator = Generator()
default_generator.seed()


def _gen(generator, dtype="float32"):
    if dtype not in ("float32", "float64"):
        raise TypeError("unsupported dtype %r (float32 or float64)" % (dtype,))
    return default_generator if generator is None else generator


# ---------------------------------------------------------------- float32 --

def _f32(xs):
    """Round a list of doubles to float32 (C's cast, ties to even)."""
    return array("f", xs).tolist()


def _f32s(x):
    return array("f", (x,))[0]


def _fix_midpoints(s, r, exact_at):
    """Round-once correction of r = f32(s), s a double rounding of an exact
    value: wrong only where s landed exactly halfway between two float32s
    (the 29 mantissa bits a float32 lacks read 1000...0) and the exact value
    is not there.  bytes.find on the three zero low bytes finds candidates
    fast; they are rare (6 of 2.9 million lanes of randn/normal_/uniform_)."""
    buf = array("d", s).tobytes()
    i = buf.find(b"\0\0\0")
    while i >= 0:
        k = i // 8
        if i % 8 == 0 and buf[i + 3] & 0x1F == 0x10 and exact_at(k) != s[k]:
            other = 2.0 * s[k] - r[k]
            r[k] = max(r[k], other) if exact_at(k) > s[k] else min(r[k], other)
        i = buf.find(b"\0\0\0", i + 1)
    return r


def _fma32(a_list, b_list, c_list):
    """Per lane round-once float32 fma(a, b, c) of float32 inputs: a*b is
    exact in a double, so only the midpoint case of the final add needs care."""
    s = [a * b + c for a, b, c in zip(a_list, b_list, c_list)]
    return _fix_midpoints(s, _f32(s), lambda i: Fraction(a_list[i]) * Fraction(b_list[i])
                          + Fraction(c_list[i]))


def _fma64(a, b, c):
    """Round-once double fma, via CPython's correctly rounded int / int."""
    if b == 1.0 and c == 0.0:
        return a
    na, da = a.as_integer_ratio()
    nb, db = b.as_integer_ratio()
    nc, dc = c.as_integer_ratio()
    num, den = na * nb, da * db  # every denominator is a power of two
    if den >= dc:
        num += nc * (den // dc)
    else:
        num, den = num * (dc // den) + nc, dc
    return num / den


def _uniform_from_bits(bits, low, high, dtype):
    """uniform_real_distribution: x in [0, 1) from the low 24 or 53 bits,
    then fma(x, to - from, from) in the tensor's precision."""
    if dtype == "float32":
        frm, to = _f32s(low), _f32s(high)
        span = _f32s(to - frm)
        if span == 1.0 and frm == 0.0:
            return [(b & _MASK24) * _INV24 for b in bits]
        # (b * 2**-24) * span == b * (span * 2**-24) exactly: one multiply.
        scale = span * _INV24
        s = [(b & _MASK24) * scale + frm for b in bits]
        return _fix_midpoints(s, _f32(s), lambda i: Fraction(bits[i] & _MASK24) * Fraction(scale)
                              + Fraction(frm))
    frm, to = float(low), float(high)
    span = to - frm
    xs = [(b & _MASK53) * _INV53 for b in bits]
    if span == 1.0 and frm == 0.0:
        return xs
    return [_fma64(x, span, frm) for x in xs]


def uniform(numel, low, high, dtype="float32", generator=None):
    """Tensor.uniform_(low, high) on a fresh contiguous tensor."""
    g = _gen(generator, dtype)
    if not low <= high:
        raise RuntimeError("uniform_ expects to return a [from, to) range, but found "
                           "from=%s > to=%s" % (_num(low), _num(high)))
    bits = g._take(numel) if dtype == "float32" else g._take64(numel)
    return _uniform_from_bits(bits, low, high, dtype)


def rand(numel, dtype="float32", generator=None):
    return uniform(numel, 0.0, 1.0, dtype, generator)


def _num(x):
    return ("%g" % x) if isinstance(x, float) else str(x)


# ----------------------------------------------------------------- normal --

def _scalar_normals(g, numel, mean, std):
    """normal_distribution<double>, for every dtype below 16 elements: Box-Muller
    over two double uniforms returns r*cos(theta) and caches r*sin(theta) on
    the generator; both leave through fma(val, std, mean) in double."""
    out = []
    two_pi = 2.0 * math.pi
    for _ in range(numel):
        cached = g._next_double
        if cached is not None:
            g._next_double = None
            out.append(_fma64(cached, std, mean))
            continue
        b1, b2 = g._take64(2)
        u1 = (b1 & _MASK53) * _INV53
        u2 = (b2 & _MASK53) * _INV53
        r = math.sqrt(math.log1p(-u2) * -2.0)
        theta = two_pi * u1
        g._next_double = r * math.sin(theta)
        out.append(_fma64(r * math.cos(theta), std, mean))
    return out


def _normal_fill_double(chunks, mean, std):
    """normal_fill_16<double>: pairs (j, j+8), radius from j, angle from j+8."""
    two_pi = 2.0 * math.pi
    results = []
    for d in chunks:
        lo, hi = [], []
        for j in range(8):
            radius = math.sqrt(math.log(1.0 - d[j]) * -2.0)
            theta = two_pi * d[j + 8]
            lo.append(_fma64(radius * math.cos(theta), std, mean))
            hi.append(_fma64(radius * math.sin(theta), std, mean))
        results.append(lo + hi)
    return results


# avx_mathfun.h's Cephes constants, as the float32 the header stores.
_c = _f32s
_LOG_P = [_c(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                          -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                          2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = _c(-2.12194440e-4), _c(0.693359375)
_SQRTHF = _c(0.707106781186547524)
_FOPI = _c(1.27323954473516)
_DP = [_c(-0.78515625), _c(-2.4187564849853515625e-4), _c(-3.77489497744594108e-8)]
_SIN_P = [_c(-1.9515295891E-4), _c(8.3321608736E-3), _c(-1.6666654611E-1)]
_COS_P = [_c(2.443315711809948E-005), _c(-1.388731625493765E-003), _c(4.166664568298827E-002)]
_TWO_PI_F = _c(2.0 * math.pi)


def _normal_fill_avx2(chunks, mean, std):
    """normal_fill_16_AVX2 on every chunk at once, one list per register.

    The operation order, and which multiply-adds are fused, follow the
    machine code of NormalFill16<float, true> in libtorch_cpu.so, not the
    C++ text: GCC fused most mul+add pairs of log256_ps and sincos256_ps.
    Each step rounds to float32 as the vector instruction does."""
    lo = [v for d in chunks for v in d[:8]]
    hi = [v for d in chunks for v in d[8:]]
    n = len(lo)
    rep = lambda v: [v] * n  # noqa: E731
    f32, fma = _f32, _fma32
    # log256_ps(1 - u): u1 = m * 2**e with m in [0.5, 1), as the bit masks do.
    fr = [math.frexp(1.0 - v) for v in lo]
    xs, es = [], []
    for m, e in fr:
        if m < _SQRTHF:
            xs.append((m - 1.0) + m)
            es.append(float(e - 1))
        else:
            xs.append(m - 1.0)
            es.append(float(e))
    z = f32([x * x for x in xs])
    y = fma(rep(_LOG_P[0]), xs, rep(_LOG_P[1]))
    for p in _LOG_P[2:]:
        y = fma(y, xs, rep(p))
    y = f32([a * x for a, x in zip(y, xs)])
    y = fma(y, z, f32([e * _LOG_Q1 for e in es]))
    y = f32([a - 0.5 * b for a, b in zip(y, z)])
    x2 = f32([x + a for x, a in zip(xs, y)])
    log = f32([e * _LOG_Q2 + x for e, x in zip(es, x2)])
    radius = f32([math.sqrt(v * -2.0) for v in log])
    # sincos256_ps(2*pi*u2); theta >= 0, so the sign-of-input step is a no-op.
    theta = f32([_TWO_PI_F * v for v in hi])
    js = [(int(v) + 1) & ~1 for v in f32([t * _FOPI for t in theta])]
    yj = [float(j) for j in js]
    x = fma(yj, rep(_DP[0]), theta)
    x = fma(yj, rep(_DP[1]), x)
    x = fma(yj, rep(_DP[2]), x)
    z = f32([v * v for v in x])
    yc = fma(rep(_COS_P[0]), z, rep(_COS_P[1]))
    yc = fma(yc, z, rep(_COS_P[2]))
    yc = f32([a * b for a, b in zip(z, yc)])
    yc = fma(yc, z, [-0.5 * v for v in z])
    yc = f32([v + 1.0 for v in yc])
    ys = fma(rep(_SIN_P[0]), z, rep(_SIN_P[1]))
    ys = fma(ys, z, rep(_SIN_P[2]))
    ys = f32([a * b for a, b in zip(z, ys)])
    ys = fma(x, ys, x)
    sin, cos = [], []
    for j, c, s in zip(js, yc, ys):
        # Blend by masks: the unselected half is +0.0, so -0.0 becomes +0.0.
        if j & 2 == 0:
            sv, cv = 0.0 + s, (s - s) + (c - 0.0)
        else:
            sv, cv = c + 0.0, (s - 0.0) + (c - c)
        sin.append(-sv if j & 4 else sv)
        cos.append(cv if (j - 2) & 4 else -cv)
    n1 = f32([r * c for r, c in zip(radius, cos)])
    n2 = f32([r * s for r, s in zip(radius, sin)])
    if std == 1.0 and mean == 0.0:
        out_lo, out_hi = n1, n2
    else:
        out_lo = fma(n1, rep(std), rep(mean))
        out_hi = fma(n2, rep(std), rep(mean))
    return [out_lo[k:k + 8] + out_hi[k:k + 8] for k in range(0, n, 8)]


def normal(numel, mean, std, dtype="float32", generator=None):
    """Tensor.normal_(mean, std) on a fresh contiguous tensor."""
    g = _gen(generator, dtype)
    if not std >= 0.0:
        raise RuntimeError("normal expects std >= 0.0, but found std %s" % _num(std))
    if numel < 16:
        vals = _scalar_normals(g, numel, float(mean), float(std))
        return _f32(vals) if dtype == "float32" else vals
    # normal_fill: draw all numel uniforms, transform them 16 at a time; a
    # ragged tail draws 16 fresh uniforms for the last 16 slots, transforms
    # them and overwrites what the full chunks wrote there.
    take = g._take if dtype == "float32" else g._take64
    data = _uniform_from_bits(take(numel), 0.0, 1.0, dtype)
    chunks = [data[i:i + 16] for i in range(0, numel - 15, 16)]
    if numel % 16:
        chunks.append(_uniform_from_bits(take(16), 0.0, 1.0, dtype))
    if dtype == "float32":
        results = _normal_fill_avx2(chunks, _f32s(mean), _f32s(std))
    else:
        results = _normal_fill_double(chunks, float(mean), float(std))
    out = [v for res in (results[:-1] if numel % 16 else results) for v in res]
    return out[:numel - 16] + results[-1] if numel % 16 else out


def randn(numel, dtype="float32", generator=None):
    return normal(numel, 0.0, 1.0, dtype, generator)


# ---------------------------------------------------------------- integers --

def randint(low, high, numel, generator=None):
    """torch.randint(low, high, size), int64: uniform_int_from_to_distribution,
    val % range + from with one 32-bit draw per element while range < 2**28,
    else one 64-bit draw.  (Older ATen switched at 2**32; torch 2.15.0's
    kernels compare the range with 0xfffffff, as the fixtures confirm.)"""
    low, high = int(low), int(high)
    if not low < high:
        raise RuntimeError("random_ expects 'from' to be less than 'to', but got "
                           "from=%d >= to=%d" % (low, high))
    span = high - low
    g = _gen(generator)
    bits = g._take64(numel) if span >= 1 << 28 else g._take(numel)
    return [b % span + low for b in bits]


def randperm(n, generator=None):
    """torch.randperm(n) on CPU: below 0xccccccc elements a forward Fisher-Yates
    swapping i with i + random() % (n - i).  Above, an inside-out shuffle on
    random64() (from the machine code; too big to fixture-check)."""
    n = int(n)
    if n < 0:
        raise RuntimeError("Trying to create tensor with negative dimension %d: [%d]" % (n, n))
    g = _gen(generator)
    if n < 0xCCCCCCC:
        perm = list(range(n))
        draws = g._take(n - 1) if n > 1 else []
        for i, r in enumerate(draws):
            z = i + r % (n - i)
            perm[i], perm[z] = perm[z], perm[i]
        return perm
    perm = [0] * n
    for i, r in enumerate(g._take64(n)):
        z = r % (i + 1)
        perm[i] = perm[z]
        perm[z] = i
    return perm


# ------------------------------------------------------------------ nn.init --

def kaiming_uniform(numel, fan_in, a=math.sqrt(5), generator=None, dtype="float32"):
    """nn.init.kaiming_uniform_(w, a, mode='fan_in', nonlinearity='leaky_relu'):
    the bound in Python floats as torch/nn/init.py computes it, then uniform_."""
    if numel == 0:
        return []
    gain = math.sqrt(2.0 / (1 + a ** 2))
    std = gain / math.sqrt(fan_in)
    bound = math.sqrt(3.0) * std
    return uniform(numel, -bound, bound, dtype, generator)


def linear_init(in_features, out_features, bias=True, generator=None, dtype="float32"):
    """nn.Linear(in_features, out_features, bias).reset_parameters(): weight
    (out x in, row-major) then bias, from one generator, in that order."""
    weight = kaiming_uniform(in_features * out_features, in_features,
                             math.sqrt(5), generator, dtype)
    if not bias:
        return weight, None
    fan_in = in_features
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    return weight, uniform(out_features, -bound, bound, dtype, generator)
