"""convolve and correlate of 1-D arrays (NumPy's modes), as a one-channel convolution."""
from . import _util as u
from ._creation import asarray
from ._elementwise import conjugate
from ._shape import flip

_CANONICAL = ((0, 1, 2), (0, 1, 2), (0, 1, 2))


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    return _conv(a, v, mode, "convolve")


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    return _conv(a, v, mode, "correlate")


def _conv(x, y, mode, op):
    x, y = asarray(x), asarray(y)
    if u.ndim(x) != 1 or u.ndim(y) != 1:
        raise ValueError(f"{op}() takes 1-D arrays")
    n, m = u.shape(x)[0], u.shape(y)[0]
    if n == 0 or m == 0:
        raise ValueError(f"{op}() of an empty array")
    reverse = False
    if op == "correlate":
        y = conjugate(y) if u.dtype_of(y).kind == "c" else y
        if n < m:
            x, y, reverse = y, x, True
    else:
        if n < m:
            x, y = y, x
        y = flip(y)
    m = u.shape(y)[0]
    pads = {"valid": (0, 0), "same": (m // 2, m - m // 2 - 1), "full": (m - 1, m - 1)}
    if mode not in pads:
        raise ValueError(f"{op}() mode must be 'full', 'same' or 'valid', not {mode!r}")
    out = u.bind("conv_general_dilated", x.reshape((1, 1, -1)), y.reshape((1, 1, -1)),
                 window_strides=(1,), padding=(tuple(int(p) for p in pads[mode]),),
                 lhs_dilation=(1,), rhs_dilation=(1,), dimension_numbers=_CANONICAL,
                 feature_group_count=1, batch_group_count=1, preferred_element_type=None)
    out = out.reshape((-1,))
    return flip(out) if reverse else out
