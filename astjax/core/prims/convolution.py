"""conv_general_dilated: XLA's convolution, with JAX's parameters.

    conv_general_dilated(lhs, rhs, window_strides=(s...), padding=((lo, hi)...),
                         lhs_dilation=(d...), rhs_dilation=(d...),
                         dimension_numbers=(lhs_spec, rhs_spec, out_spec),
                         feature_group_count=G, batch_group_count=B,
                         preferred_element_type=None)

Specs are tuples of axis positions: lhs (batch, feature, spatial...), rhs (out feature, in
feature, spatial...), out (batch, feature, spatial...), as `lax.ConvDimensionNumbers`. The
NumPy implementation works in canonical (N, C, spatial...) order: dilate, pad, take strided
windows, contract (per feature or batch group).
"""
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...errors import ShapeError
from ..avals import AVal
from ..primitives import define


def dilate_size(d, k: int):
    return 0 if d == 0 else (d - 1) * k + 1


def conv_out_shape(lhs_shape, rhs_shape, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count, batch_group_count):
    """The result's shape, in the order of the out spec."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    n, c = lhs_shape[lhs_spec[0]], lhs_shape[lhs_spec[1]]
    o, i = rhs_shape[rhs_spec[0]], rhs_shape[rhs_spec[1]]
    if c != i * feature_group_count:
        raise ShapeError(f"convolution: the input has {c} features, the kernel takes {i} per "
                         f"group times {feature_group_count} groups")
    if o % feature_group_count or o % batch_group_count or n % batch_group_count:
        raise ShapeError("convolution: output features (and, with batch groups, the batch) "
                         "must divide into the groups")
    spatial = []
    for k, (a, b) in enumerate(zip(lhs_spec[2:], rhs_spec[2:])):
        size = dilate_size(lhs_shape[a], lhs_dilation[k]) + sum(padding[k])
        window = dilate_size(rhs_shape[b], rhs_dilation[k])
        if size < window:
            raise ShapeError(f"convolution: spatial dimension {k} is {size} after dilation "
                             f"and padding, smaller than the window ({window})")
        spatial.append((size - window) // window_strides[k] + 1)
    canonical = [n // batch_group_count, o] + spatial
    shape = [0] * len(canonical)
    for k, axis in enumerate(out_spec):
        shape[axis] = canonical[k]
    return tuple(shape)


def _abstract(lhs, rhs, *, preferred_element_type=None, **params):
    if lhs.ndim != rhs.ndim or lhs.ndim < 2:
        raise ShapeError(f"convolution of ranks {lhs.ndim} and {rhs.ndim}: both need the same "
                         "rank, at least 2")
    dtype = np.dtype(preferred_element_type) if preferred_element_type else \
        np.result_type(lhs.dtype, rhs.dtype)
    return AVal(conv_out_shape(lhs.shape, rhs.shape, **params), dtype)


def _impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
          feature_group_count, batch_group_count, preferred_element_type=None):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dtype = np.dtype(preferred_element_type) if preferred_element_type else \
        np.result_type(np.asarray(lhs).dtype, np.asarray(rhs).dtype)
    x = np.transpose(np.asarray(lhs), lhs_spec).astype(dtype)
    w = np.transpose(np.asarray(rhs), rhs_spec).astype(dtype)
    x = _pad(_dilate(x, lhs_dilation), padding)
    w = _dilate(w, rhs_dilation)
    xs = np.split(x, feature_group_count, axis=1) if feature_group_count > 1 else \
        np.split(x, batch_group_count, axis=0)
    ws = np.split(w, max(feature_group_count, batch_group_count), axis=0)
    out = np.concatenate([_plain(a, b, window_strides) for a, b in zip(xs, ws)], axis=1)
    return np.transpose(out, np.argsort(out_spec))


def _dilate(x, dilation):
    """Zeros between the elements of each spatial axis (axes 2...)."""
    if all(d == 1 for d in dilation):
        return x
    shape = x.shape[:2] + tuple(dilate_size(s, d) for s, d in zip(x.shape[2:], dilation))
    out = np.zeros(shape, x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in dilation)] = x
    return out


def _pad(x, padding):
    """Zero padding, negative amounts cropping."""
    crop = tuple(slice(max(-lo, 0), x.shape[2 + k] - max(-hi, 0))
                 for k, (lo, hi) in enumerate(padding))
    x = x[(slice(None), slice(None)) + crop]
    return np.pad(x, [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding])


def _plain(x, w, strides):
    """(N, C, S...) with (O, C, K...): strided windows contracted with the kernel."""
    nsp = x.ndim - 2
    axes = tuple(range(2, 2 + nsp))
    windows = sliding_window_view(x, w.shape[2:], axis=axes)
    windows = windows[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)]
    out = np.tensordot(windows, w, axes=([1] + list(range(2 + nsp, 2 + 2 * nsp)),
                                         [1] + list(range(2, 2 + nsp))))
    return np.moveaxis(out, -1, 1) if math.prod(out.shape) or out.ndim else out


define("conv_general_dilated", _impl, _abstract, kind="convolution")
