"""lax's special functions that are iterations: the regularized incomplete gamma functions
(igamma = P, igammac = Q) and their derivative in a, the gamma sampler's reparameterisation
derivative, the regularized incomplete beta function, Hurwitz zeta, and the scaled Bessel
functions i0e/i1e.

P and Q follow Cephes: the power series of P where x < a + 1 (or x < 1), Legendre's continued
fraction of Q elsewhere, each iterated on all elements at once until every element has
converged (a while loop). The derivative in a is carried along the same iteration. P and Q
differentiate by their closed-form rules (`with_jvp`); betainc (the modified Lentz evaluation of
its continued fraction) is differentiated through its iteration, in a and b too.
"""
import math
from fractions import Fraction

import numpy as np

import astjax.numpy as jnp
from ..control import while_loop
from ..core.library_rules import with_jvp
from ..numpy import _bessel
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._util import bind


def _floats(*xs):
    """The operands broadcast together in one float dtype (float32 at least)."""
    xs = [_as_operand(x) for x in xs]
    dtype = u.inexact_type_of(*xs)
    if dtype.kind == "c":
        raise u.DtypeError("these special functions take real arguments")
    if dtype.itemsize < 4:
        dtype = np.dtype(np.float32)
    xs = [x if u.dtype_of(x) == dtype else bind("convert", x, dtype=dtype.name) for x in xs]
    shape = jnp.broadcast_shapes(*[u.shape(x) for x in xs])
    return [jnp.broadcast_to(x, shape) for x in xs]


def _eps(x):
    return float(np.finfo(u.dtype_of(x)).eps)


def _any(mask):
    return bind("reduce_or", mask, axes=tuple(range(u.ndim(mask))))


def _log_prefactor(a, x):
    """log(x^a e^-x / Gamma(a)), and whether it underflows."""
    log_ax = a * jnp.log(x) - x - bind("lgamma", a)
    return log_ax, log_ax < -math.log(float(np.finfo(u.dtype_of(x)).max))


# ---------------------------------------------------------------- the two iterations
def _series(a, x, enabled, with_derivative):
    """sum_n x^n / ((a+1)...(a+n)) (and its derivative in a), for P(a, x)."""
    zero = jnp.zeros_like(a)

    def more(state):
        return _any(state[0])

    def step(state):
        active, r, c, total, dc, dtotal = state
        r_next = r + 1
        dc_next = dc * (x / r_next) - c * x / (r_next * r_next)
        c_next = c * (x / r_next)
        total_next = total + c_next
        dtotal_next = dtotal + dc_next
        if with_derivative:
            going = active & (jnp.abs(dc_next / dtotal_next) > _eps(x))
        else:
            going = active & (c_next / total_next > _eps(x))
        keep = lambda new, old: jnp.where(active, new, old)  # noqa: E731
        return (going, keep(r_next, r), keep(c_next, c), keep(total_next, total),
                keep(dc_next, dc), keep(dtotal_next, dtotal))

    state = while_loop(more, step, (enabled, a, jnp.ones_like(a), jnp.ones_like(a), zero, zero))
    return state[3], state[5]


def _continued_fraction(a, x, enabled, with_derivative):
    """Legendre's continued fraction for Q(a, x) / prefactor (and its derivative in a)."""
    eps = _eps(x)
    big = 1.0 / eps

    def more(state):
        return (state[5] < 2000) & _any(state[0])

    def step(state):
        (active, ans, y, z, c, count, pkm1, qkm1, pkm2, qkm2,
         dpkm2, dqkm2, dpkm1, dqkm1, dans) = state
        c, y, z = c + 1, y + 1, z + 2
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        usable = qk != 0
        r = pk / jnp.where(usable, qk, 1)
        change = jnp.where(usable, jnp.abs((ans - r) / jnp.where(r == 0, 1, r)), 1)
        ans_next = jnp.where(usable, r, ans)
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        dans_next = jnp.where(usable, (dpk - ans_next * dqk) / jnp.where(usable, qk, 1), dans)
        dchange = jnp.where(usable, jnp.abs(dans_next - dans), 1)
        rescale = jnp.abs(pk) > big
        scale = lambda v: jnp.where(rescale, v * eps, v)  # noqa: E731
        new = (scale(pk), scale(qk), scale(pkm1), scale(qkm1),
               scale(dpkm1), scale(dqkm1), scale(dpk), scale(dqk))
        going = active & ((dchange if with_derivative else change) > eps)
        keep = lambda n, o: jnp.where(active, n, o)  # noqa: E731
        return (going, keep(ans_next, ans), keep(y, state[2]), keep(z, state[3]), c, count + 1,
                keep(new[0], pkm1), keep(new[1], qkm1), keep(new[2], pkm2), keep(new[3], qkm2),
                keep(new[4], dpkm2), keep(new[5], dqkm2), keep(new[6], dpkm1),
                keep(new[7], dqkm1), keep(dans_next, dans))

    y = 1 - a
    z = x + y + 1
    pkm1, qkm1 = x + 1, z * x
    ans = pkm1 / qkm1
    zero = jnp.zeros_like(x)
    dqkm1 = -x
    state = (enabled, ans, y, z, zero, np.int32(0), pkm1, qkm1, jnp.ones_like(x), x,
             zero, zero, zero, dqkm1, (zero - ans * dqkm1) / qkm1)
    state = while_loop(more, step, state)
    return state[1], state[14]


def _regimes(a, x):
    """(use the continued fraction, domain error, special points) for P/Q."""
    nan = jnp.isnan(a) | jnp.isnan(x)
    domain = (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | nan
    return (x >= 1) & (x > a), domain


# ---------------------------------------------------------------- P, Q and derivatives in a
def _igamma_value(a, x):
    use_cf, domain = _regimes(a, x)
    log_ax, underflow = _log_prefactor(a, x)
    infinite = x == np.inf
    enabled = ~(domain | underflow | infinite | (x == 0))
    ax = jnp.exp(log_ax)
    total, _ = _series(a, x, enabled & ~use_cf, False)
    cf, _ = _continued_fraction(a, x, enabled & use_cf, False)
    out = jnp.where(use_cf, 1 - cf * ax, total * ax / a)
    out = jnp.where(x == 0, 0.0, out)
    out = jnp.where(infinite, 1.0, out)
    return jnp.where(domain, np.nan, out).astype(u.dtype_of(a))


def _igammac_value(a, x):
    use_p = (x < 1) | (x < a)
    _, domain = _regimes(a, x)
    log_ax, underflow = _log_prefactor(a, x)
    infinite = x == np.inf
    enabled = ~(domain | underflow | infinite | (a == 0))
    ax = jnp.exp(log_ax)
    total, _ = _series(a, x, enabled & use_p, False)
    cf, _ = _continued_fraction(a, x, enabled & ~use_p, False)
    out = jnp.where(use_p, 1 - total * ax / a, cf * ax)
    out = jnp.where(infinite | (a == 0), 0.0, out)
    return jnp.where(domain, np.nan, out).astype(u.dtype_of(a))


def _derivative_in_a(a, x, sample):
    """dP/da, or (sample=True) the derivative of a gamma sample x in its shape a at fixed P."""
    nan = jnp.isnan(a) | jnp.isnan(x)
    domain = (x < 0) | (a <= 0)
    use_cf = (x > 1) & (x > a)
    log_ax, underflow = _log_prefactor(a, x)
    enabled = ~((x == 0) | domain | underflow | nan)
    ax = jnp.exp(log_ax)
    safe_x = jnp.where(x > 0, x, 1)
    total, dtotal = _series(a, x, enabled & ~use_cf, True)
    cf, dcf = _continued_fraction(a, x, enabled & use_cf, True)
    dlog_series = jnp.log(safe_x) - bind("digamma", a + 1)
    dlog_cf = jnp.log(safe_x) - bind("digamma", a)
    if sample:
        from_series = -(dtotal + total * dlog_series) * x / a
        from_cf = -(dcf + cf * dlog_cf) * x
        out = jnp.where(use_cf, -from_cf, from_series)
    else:
        from_series = ax * (total * dlog_series + dtotal) / a
        from_cf = ax * (cf * dlog_cf + dcf)
        out = jnp.where(use_cf, -from_cf, from_series)
    out = jnp.where(x == 0, 0.0, out)
    return jnp.where(domain | nan, np.nan, out).astype(u.dtype_of(a))


def _density(a, x):
    """dP/dx = x^(a-1) e^-x / Gamma(a)."""
    safe_x = jnp.where(x > 0, x, 1)
    value = jnp.exp((a - 1) * jnp.log(safe_x) - x - bind("lgamma", a))
    return jnp.where(x > 0, value, 0.0).astype(u.dtype_of(a))


def _igamma_jvp(primals, tangents):
    a, x = primals
    ta, tx = tangents
    return igamma(a, x), igamma_grad_a(a, x) * ta + _density(a, x) * tx


def _igammac_jvp(primals, tangents):
    a, x = primals
    ta, tx = tangents
    return igammac(a, x), -(igamma_grad_a(a, x) * ta + _density(a, x) * tx)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = _floats(a, x)
    return with_jvp("igamma", _igamma_value, _igamma_jvp, a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = _floats(a, x)
    return with_jvp("igammac", _igammac_value, _igammac_jvp, a, x)


def igamma_grad_a(a, x):
    a, x = _floats(a, x)
    return _derivative_in_a(a, x, sample=False)


def random_gamma_grad(a, x):
    """d sample / d a for a Gamma(a, 1) sample x (the implicit reparameterisation gradient)."""
    a, x = _floats(a, x)
    return _derivative_in_a(a, x, sample=True)


# ---------------------------------------------------------------- incomplete beta
def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b), by the modified Lentz evaluation of
    its continued fraction (on the side of the symmetry I_x(a, b) = 1 - I_(1-x)(b, a) where it
    converges fast)."""
    a, b, x = _floats(a, b, x)
    dtype = u.dtype_of(x)
    eps = float(np.finfo(dtype).eps) / 2
    tiny = eps
    fast = x < (a + 1) / (a + b + 2)
    p, q, y = jnp.where(fast, a, b), jnp.where(fast, b, a), jnp.where(fast, x, 1 - x)

    def numerator(m):
        """The m-th partial numerator (m >= 1): 1, then DLMF 8.17.22's d_1, d_2, ...: with
        k = (m - 1) // 2, m = 2k + 2 gives d_(2k+1) and m = 2k + 1 gives d_(2k)."""
        k = jnp.floor((m - 1) / 2)
        odd_d = -(p + k) * (p + q + k) * y / ((p + 2 * k) * (p + 2 * k + 1))
        even_d = k * (q - k) * y / ((p + 2 * k - 1) * (p + 2 * k))
        return jnp.where(m == 1, 1.0, jnp.where(m % 2 == 0, odd_d, even_d))

    def more(state):
        return (state[0] < (200 if dtype == np.float32 else 600)) & state[1]

    def step(state):
        m, _, c, d, h = state
        num = numerator(m.astype(dtype))
        c = 1 + num / c
        c = jnp.where(jnp.abs(c) < tiny, tiny, c)
        d = 1 + num * d
        d = 1 / jnp.where(jnp.abs(d) < tiny, tiny, d)
        delta = c * d
        return m + 1, _any(jnp.abs(delta - 1) >= eps), c, d, h * delta

    start = jnp.full(u.shape(x), tiny, dtype)  # the 0th partial denominator, 0, made tiny
    _, _, _, _, fraction = while_loop(more, step, (np.int32(1), np.bool_(True), start,
                                                   jnp.zeros_like(x), start))
    log_beta = bind("lgamma", p) + bind("lgamma", q) - bind("lgamma", p + q)
    factor = jnp.exp(jnp.log(y) * p + jnp.log1p(-y) * q - log_beta) / p
    out = fraction * factor
    out = jnp.where(fast, out, 1 - out)
    out = jnp.where(x == 0, 0.0, jnp.where(x == 1, 1.0, out))
    bad = (a <= 0) | (b <= 0) | (x < 0) | (x > 1) | jnp.isnan(a) | jnp.isnan(b) | jnp.isnan(x)
    return jnp.where(bad, np.nan, out).astype(dtype)


# ---------------------------------------------------------------- zeta and Bessel
def _bernoulli_numbers(n):
    """B_0 .. B_n exactly (B_1 = -1/2, SciPy's convention)."""
    numbers = [Fraction(1)]
    for m in range(1, n + 1):
        numbers.append(-sum(math.comb(m + 1, k) * numbers[k] for k in range(m)) / (m + 1))
    return numbers


_EULER_MACLAURIN = [float(b / math.factorial(2 * j))  # B_2j / (2j)!, j = 1..16
                    for j, b in enumerate(_bernoulli_numbers(32)[2::2], start=1)]


def zeta(x, q):
    """The Hurwitz zeta function sum_k (q + k)^-x (Euler-Maclaurin with N = M = 16 terms, 8 in
    float32, as JAX). Differentiable in q; x is a parameter."""
    s, a = _floats(x, q)
    n = 8 if u.dtype_of(a) == np.float32 else 16
    total = 0.0
    for k in range(n):
        total = total + (a + k) ** -s
    shifted = a + n
    total = total + shifted ** (1.0 - s) / (s - 1.0)
    correction, rising = 0.5, 1.0
    for j in range(1, n + 1):
        rising = rising * (s + 2 * j - 2) / shifted  # (s)_{2j-1} / (a + N)^{2j-1}
        correction = correction + _EULER_MACLAURIN[j - 1] * rising
        rising = rising * (s + 2 * j - 1) / shifted
    return total + shifted ** -s * correction


def _i0e_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = bessel_i0e(x)
    return y, (bessel_i1e(x) - jnp.sign(x) * y) * t


def _i1e_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = bessel_i1e(x)
    tiny = float(np.finfo(u.dtype_of(x)).eps)
    safe = jnp.where(jnp.abs(x) > tiny, x, tiny)
    slope = jnp.where(jnp.abs(x) > tiny, bessel_i0e(safe) - y * (jnp.sign(safe) + 1 / safe), 0.5)
    return y, slope * t


def bessel_i0e(x):
    return with_jvp("bessel_i0e", _bessel.i0e, _i0e_jvp, _floats(x)[0])


def bessel_i1e(x):
    return with_jvp("bessel_i1e", _bessel.i1e, _i1e_jvp, _floats(x)[0])
