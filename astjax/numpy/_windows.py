"""Window functions (NumPy's formulas, float64): bartlett, blackman, hamming, hanning, kaiser.
The length M is static."""
import numpy as np

from . import _util as u
from ._bessel import i0
from ._creation import _as_operand, arange, asarray, ones
from ._util import bind


def _length(M, name):
    M = u.static_int(M, f"{name}'s M")
    return M


def _trivial(M):
    if M < 1:
        return asarray(np.zeros(0))
    return ones((1,), np.float64) if M == 1 else None


def bartlett(M):
    M = _length(M, "bartlett")
    if _trivial(M) is not None:
        return _trivial(M)
    n = arange(1 - M, M, 2, dtype=np.float64)
    return bind("sub", 1.0, bind("abs", bind("div", n, M - 1)))


def _cosine_sum(M, weights):
    """sum_k (-1)^k w_k cos(2 pi k n / (M - 1)), n = 0 .. M-1."""
    n = arange(M, dtype=np.float64)
    out = None
    for k, w in enumerate(weights):
        term = np.asarray(w) if k == 0 else bind("mul", (-1) ** k * w,
                                                 bind("cos", bind("mul", n, 2 * np.pi * k / (M - 1))))
        out = term if out is None else bind("add", out, term)
    return out


def blackman(M):
    M = _length(M, "blackman")
    if _trivial(M) is not None:
        return _trivial(M)
    return _cosine_sum(M, (0.42, 0.5, 0.08))


def hamming(M):
    M = _length(M, "hamming")
    if _trivial(M) is not None:
        return _trivial(M)
    return _cosine_sum(M, (0.54, 0.46))


def hanning(M):
    M = _length(M, "hanning")
    if _trivial(M) is not None:
        return _trivial(M)
    return _cosine_sum(M, (0.5, 0.5))


def kaiser(M, beta):
    M = _length(M, "kaiser")
    if _trivial(M) is not None:
        return _trivial(M)
    beta = _as_operand(beta)
    alpha = (M - 1) / 2.0
    n = arange(M, dtype=np.float64)
    ratio = bind("div", bind("sub", n, alpha), alpha)
    arg = bind("mul", beta, bind("sqrt", bind("sub", 1.0, bind("mul", ratio, ratio))))
    return bind("div", i0(arg), i0(bind("convert", beta, dtype="float64")))
