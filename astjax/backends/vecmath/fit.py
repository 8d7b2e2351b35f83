"""Development helper: how the polynomial coefficients in :mod:`vecmath` were fitted.

Not imported by vecmath at run time (it needs mpmath).  Usage, e.g.::

    python -m astjax.backends.vecmath.fit

A fit is a near-minimax polynomial for g(t) on [a, b] in powers t**0..t**deg, found by
Lawson's iteratively reweighted least squares in high precision, then rounded to the
target float type.  The error reported is measured after rounding the coefficients.
"""
import mpmath as mp
import numpy as np

mp.mp.prec = 160


def fit(g, a, b, deg, dtype=np.float64, fixed=(), npts=600, iters=40, weight=None):
    """Coefficients c[0..deg] (rounded to dtype) minimising max |w(t)*(g(t) - sum c_k t^k)|.

    fixed: {k: value} coefficients held at given values (e.g. the exact leading terms).
    weight: w(t) (default 1 -> absolute error; use 1/g for relative).
    """
    fixed = dict(fixed)
    a, b = mp.mpf(a), mp.mpf(b)
    ts = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (i + mp.mpf(0.5)) / npts) for i in range(npts)]
    ts += [a, b]
    gs = [g(t) for t in ts]
    ws = [weight(t) if weight else mp.mpf(1) for t in ts]
    free = [k for k in range(deg + 1) if k not in fixed]
    lw = [mp.mpf(1) / len(ts)] * len(ts)
    coef = None
    for _ in range(iters):
        A = mp.matrix(len(free), len(free))
        rhs = mp.matrix(len(free), 1)
        for t, gv, w, l in zip(ts, gs, ws, lw):
            r = gv - sum(v * t**k for k, v in fixed.items())
            pw = [t**k for k in free]
            ww = l * w * w
            for i in range(len(free)):
                rhs[i] += ww * pw[i] * r
                for j in range(len(free)):
                    A[i, j] += ww * pw[i] * pw[j]
        sol = mp.lu_solve(A, rhs)
        coef = dict(fixed)
        coef.update({k: sol[i] for i, k in enumerate(free)})
        errs = [abs(w * (gv - sum(coef[k] * t**k for k in coef))) for t, gv, w in zip(ts, gs, ws)]
        tot = sum(l * e for l, e in zip(lw, errs))
        lw = [l * e / tot for l, e in zip(lw, errs)]
    out = [float(dtype(float(coef[k]))) if dtype == np.float32 else float(coef[k]) for k in range(deg + 1)]
    # error after rounding, on a denser grid
    grid = [a + (b - a) * i / 4000 for i in range(4001)]
    err = max(abs((weight(t) if weight else 1) * (g(t) - sum(mp.mpf(out[k]) * t**k for k in range(deg + 1))))
              for t in grid)
    return out, float(err)


if __name__ == "__main__":
    f32, f64 = np.float32, np.float64
    ln2h = float(mp.log(2)) / 2 + 1e-3
    # exp: e^r = 1 + r + r^2 * P(r)
    def g(r):
        return (mp.exp(r) - 1 - r) / r**2 if r != 0 else mp.mpf(0.5)
    print("exp32", fit(g, -ln2h, ln2h, 5, f32, weight=lambda r: r * r / mp.exp(r)))
    print("exp64", fit(g, -ln2h, ln2h, 10, f64, weight=lambda r: r * r / mp.exp(r)))
