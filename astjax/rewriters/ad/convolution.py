"""Derivatives of conv_general_dilated, as JAX derives them: linear in each operand (the JVP
is the convolution of the tangents), and each transpose is itself a convolution: of the
cotangent with the flipped kernel (input), of the input with the cotangent (kernel)."""
import numpy as np

from astjax.core.bind import bind
from astjax.core.prims.convolution import dilate_size

from .rules import VJP, tangent_rule
from .util import aval


@tangent_rule("conv_general_dilated")
def _conv_jvp(primals, tangents, out, **params):
    """Bilinear: conv(t_lhs, rhs) + conv(lhs, t_rhs)."""
    (lhs, rhs), (t_lhs, t_rhs) = primals, tangents
    terms = []
    if t_lhs is not None:
        terms.append(_conv(t_lhs, rhs, **params))
    if t_rhs is not None:
        terms.append(_conv(lhs, t_rhs, **params))
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else bind("add", terms[0], terms[1])


def _transpose_spec(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _reshape_axis_out_of(src, size, x):
    shape = list(aval(x).shape)
    shape[src:src + 1] = [size, shape[src] // size]
    return bind("reshape", x, new_sizes=tuple(shape))


def _reshape_axis_into(src, dst, x):
    """Axis src merged into axis dst (dst counted after src is removed), src the major part."""
    shape = list(aval(x).shape)
    order = [i for i in range(len(shape)) if i != src]
    order.insert(dst, src)
    moved = bind("transpose", x, permutation=tuple(order)) if order != list(range(len(shape))) \
        else x
    rest = [shape[i] for i in range(len(shape)) if i != src]
    rest[dst] *= shape[src]
    return bind("reshape", moved, new_sizes=tuple(rest))


def _lhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    lhs_d = [dilate_size(s, d) for s, d in zip(in_shape, lhs_dilation)]
    rhs_d = [dilate_size(s, d) for s, d in zip(window, rhs_dilation)]
    out_d = [dilate_size(s, d) for s, d in zip(out_shape, strides)]
    before = [r - lo - 1 for r, (lo, _) in zip(rhs_d, padding)]
    after = [a + r - 1 - o - b for a, r, o, b in zip(lhs_d, rhs_d, out_d, before)]
    return tuple(zip(before, after))


def _rhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    lhs_d = [dilate_size(s, d) for s, d in zip(in_shape, lhs_dilation)]
    rhs_d = [dilate_size(s, d) for s, d in zip(window, rhs_dilation)]
    out_d = [dilate_size(s, d) for s, d in zip(out_shape, strides)]
    lows = [lo for lo, _ in padding]
    highs = [o - a + r - lo - 1 for o, a, r, lo in zip(out_d, lhs_d, rhs_d, lows)]
    return tuple(zip(lows, highs))


def _conv(lhs, rhs, **params):
    return bind("conv_general_dilated", lhs, rhs, **params)


@VJP.register("conv_general_dilated")
def _conv_vjp(ct, lhs, rhs, out, *, window_strides, padding, lhs_dilation, rhs_dilation,
              dimension_numbers, feature_group_count, batch_group_count,
              preferred_element_type=None):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape, rhs_shape, ct_shape = aval(lhs).shape, aval(rhs).shape, aval(ct).shape
    spatial = lambda shape, spec: [shape[a] for a in spec[2:]]  # noqa: E731
    args = (spatial(lhs_shape, lhs_spec), spatial(rhs_shape, rhs_spec), window_strides,
            spatial(ct_shape, out_spec), padding, lhs_dilation, rhs_dilation)
    return [_lhs_cotangent(ct, lhs, rhs, args, dimension_numbers, feature_group_count,
                           batch_group_count),
            _rhs_cotangent(ct, lhs, rhs, args, dimension_numbers, feature_group_count,
                           batch_group_count)]


def _lhs_cotangent(ct, lhs, rhs, args, dn, feature_groups, batch_groups):
    lhs_spec, rhs_spec, out_spec = dn
    window_strides, lhs_dilation, rhs_dilation = args[2], args[5], args[6]
    groups = feature_groups
    if feature_groups > 1 or batch_groups > 1:
        count = max(feature_groups, batch_groups)
        rhs = _reshape_axis_out_of(rhs_spec[0], count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        groups = count
    flipped = bind("rev", rhs, dimensions=tuple(rhs_spec[2:]))
    flipped = bind("convert", flipped, dtype=aval(ct).dtype.name) \
        if aval(flipped).dtype != aval(ct).dtype else flipped
    out = _conv(ct, flipped, window_strides=tuple(lhs_dilation), padding=_lhs_padding(*args),
                lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
                dimension_numbers=(out_spec, _transpose_spec(rhs_spec), lhs_spec),
                feature_group_count=groups, batch_group_count=1, preferred_element_type=None)
    if batch_groups > 1:
        out = _reshape_axis_out_of(lhs_spec[1], batch_groups, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return _as(out, lhs)


def _rhs_cotangent(ct, lhs, rhs, args, dn, feature_groups, batch_groups):
    lhs_spec, rhs_spec, out_spec = dn
    window_strides, lhs_dilation, rhs_dilation = args[2], args[5], args[6]
    if batch_groups > 1:
        feature_groups, batch_groups = batch_groups, 1
    elif feature_groups > 1:
        feature_groups, batch_groups = 1, feature_groups
    lhs_c = bind("convert", lhs, dtype=aval(ct).dtype.name) \
        if aval(lhs).dtype != aval(ct).dtype else lhs
    out = _conv(lhs_c, ct, window_strides=tuple(rhs_dilation), padding=_rhs_padding(*args),
                lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
                dimension_numbers=(_transpose_spec(lhs_spec), _transpose_spec(out_spec),
                                   _transpose_spec(rhs_spec)),
                feature_group_count=feature_groups, batch_group_count=batch_groups,
                preferred_element_type=None)
    return _as(out, rhs)


def _as(x, like):
    dtype = aval(like).dtype
    return x if aval(x).dtype == dtype else bind("convert", x, dtype=np.dtype(dtype).name)
