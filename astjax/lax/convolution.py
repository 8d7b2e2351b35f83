"""lax's convolutions: conv_general_dilated (the primitive) and what is built on it (conv,
conv_transpose, the patch extraction and locally connected convolution), with the dimension
number and output shape helpers."""
import math

import numpy as np

import astjax.numpy as jnp
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._util import bind


class ConvDimensionNumbers(tuple):
    """(lhs_spec, rhs_spec, out_spec): axis positions of (batch, feature, spatial...) of the
    input, (out feature, in feature, spatial...) of the kernel and (batch, feature, spatial...)
    of the output, as JAX's namedtuple."""
    def __new__(cls, lhs_spec, rhs_spec, out_spec):
        return super().__new__(cls, (tuple(lhs_spec), tuple(rhs_spec), tuple(out_spec)))

    lhs_spec = property(lambda self: self[0])
    rhs_spec = property(lambda self: self[1])
    out_spec = property(lambda self: self[2])


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """ConvDimensionNumbers from None (N, C, spatial... everywhere), a ConvDimensionNumbers, or
    three strings such as ('NHWC', 'HWIO', 'NHWC')."""
    rank = len(lhs_shape)
    if dimension_numbers is None:
        canonical = tuple(range(rank))
        return ConvDimensionNumbers(canonical, canonical, canonical)
    if isinstance(dimension_numbers, ConvDimensionNumbers) or \
            all(not isinstance(s, str) for s in dimension_numbers):
        return ConvDimensionNumbers(*dimension_numbers)
    lhs, rhs, out = dimension_numbers
    for spec, pair in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if len(spec) != rank or any(spec.count(ch) != 1 for ch in pair) or len(set(spec)) != rank:
            raise ValueError(f"convolution dimension_numbers {dimension_numbers!r}: each must "
                             f"name every axis once, with {pair[0]} and {pair[1]}")

    def positions(spec, pair):
        spatial = [i for i, ch in enumerate(spec) if ch not in pair]
        if spec is not rhs:
            spatial.sort(key=lambda i: rhs.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)
    return ConvDimensionNumbers(positions(lhs, "NC"), positions(rhs, "OI"), positions(out, "NC"))


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """'VALID', 'SAME' or 'SAME_LOWER' as (low, high) pairs per spatial dimension."""
    padding = padding.upper()
    if padding == "VALID":
        return [(0, 0)] * len(in_shape)
    if padding not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"unknown padding {padding!r}: use 'SAME', 'SAME_LOWER', 'VALID' or "
                         "(low, high) pairs")
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides):
        out = -(-size // stride)
        total = max((out - 1) * stride + window - size, 0)
        small, large = total // 2, total - total // 2
        pads.append((small, large) if padding == "SAME" else (large, small))
    return pads


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None):
    lhs, rhs = _as_operand(lhs), _as_operand(rhs)
    dn = conv_dimension_numbers(u.shape(lhs), u.shape(rhs), dimension_numbers)
    spatial = len(u.shape(lhs)) - 2
    window_strides = tuple(int(s) for s in window_strides)
    lhs_dilation = tuple(int(d) for d in lhs_dilation) if lhs_dilation else (1,) * spatial
    rhs_dilation = tuple(int(d) for d in rhs_dilation) if rhs_dilation else (1,) * spatial
    if isinstance(padding, str):
        from ..core.prims.convolution import dilate_size
        # 'SAME' padding depends on the sizes: they become facts of the compiled entry
        in_shape = [int(u.shape(lhs)[a]) for a in dn.lhs_spec[2:]]
        window = [dilate_size(int(u.shape(rhs)[a]), d)
                  for a, d in zip(dn.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads(in_shape, window, window_strides, padding)
    padding = tuple((int(lo), int(hi)) for lo, hi in padding)
    preferred = np.dtype(preferred_element_type).name if preferred_element_type else None
    return bind("conv_general_dilated", lhs, rhs, window_strides=window_strides,
                padding=padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                dimension_numbers=tuple(dn), feature_group_count=int(feature_group_count),
                batch_group_count=int(batch_group_count), preferred_element_type=preferred)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """conv_general_dilated in (N, C, spatial...) / (O, I, spatial...) order."""
    return conv_general_dilated(lhs, rhs, window_strides, padding,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k, s, padding):
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else int(np.ceil(total / 2))
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        before = k - 1
    else:
        raise ValueError(f"unknown padding {padding!r}")
    return before, total - before


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None):
    """The transposed ("deconvolution") convolution, as JAX defines it (TensorFlow's
    layouts by default)."""
    from ..core.prims.convolution import dilate_size
    lhs, rhs = _as_operand(lhs), _as_operand(rhs)
    rank = len(u.shape(lhs))
    if dimension_numbers is None:
        dimension_numbers = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                             4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}[rank]
    dn = conv_dimension_numbers(u.shape(lhs), u.shape(rhs), dimension_numbers)
    kernel = [int(u.shape(rhs)[a]) for a in dn.rhs_spec[2:]]
    rhs_dilation = tuple(rhs_dilation) if rhs_dilation else (1,) * (rank - 2)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(dilate_size(k, r), s, padding.upper())
                   for k, r, s in zip(kernel, rhs_dilation, strides)]
    if transpose_kernel:
        rhs = jnp.flip(rhs, dn.rhs_spec[2:])
        rhs = jnp.swapaxes(rhs, dn.rhs_spec[0], dn.rhs_spec[1])
    return conv_general_dilated(lhs, rhs, (1,) * (rank - 2), padding, strides, rhs_dilation,
                                dn, preferred_element_type=preferred_element_type)


# ---------------------------------------------------------------- shapes
def conv_general_permutations(dimension_numbers):
    """The (lhs, rhs, out) axis permutations that put each operand in (N, C, spatial...),
    (O, I, spatial...) and (N, C, spatial...) order."""
    rank = len(dimension_numbers[0])
    return tuple(conv_dimension_numbers((0,) * rank, None, dimension_numbers))


def _out_space(in_space, window, strides):
    return [max(0, (int(i) - int(w)) // int(s) + 1) for i, w, s in zip(in_space, window, strides)]


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution in (N, C, spatial...) / (O, I, spatial...) order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    padded = [int(d) + int(lo) + int(hi) for d, (lo, hi) in zip(lhs_shape[2:], pads)]
    space = _out_space(padded, rhs_shape[2:], strides)
    return (int(lhs_shape[0]) // batch_group_count, int(rhs_shape[0])) + tuple(space)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(int(k), int(s), padding.upper())
                   for k, s in zip(rhs_t[2:], window_strides)]
    space = [(int(i) - 1) * int(s) - int(k) + 2 + int(lo) + int(hi)
             for i, k, s, (lo, hi) in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
    out = (int(lhs_t[0]), int(rhs_t[0])) + tuple(space)
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    from ..core.prims.convolution import dilate_size
    shape = [int(d) for d in operand_shape]
    if base_dilation is not None:
        shape = [dilate_size(d, b) for d, b in zip(shape, base_dilation)]
    window = [int(w) for w in window_dimensions]
    if window_dilation is not None:
        window = [dilate_size(w, d) for w, d in zip(window, window_dilation)]
    padded = [d + int(lo) + int(hi) for d, (lo, hi) in zip(shape, padding)]
    return tuple(_out_space(padded, window, window_strides))


# ---------------------------------------------------------------- built on the convolution
def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation=None,
                                 rhs_dilation=None, dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """Each output position's receptive field flattened into the feature axis (feature index
    c * prod(filter_shape) + position in the filter), by a convolution with one-hot kernels."""
    lhs = _as_operand(lhs)
    rank = u.ndim(lhs)
    dn = conv_dimension_numbers(u.shape(lhs), None, dimension_numbers)
    channels = int(u.shape(lhs)[dn.lhs_spec[1]])
    filter_shape = tuple(int(k) for k in filter_shape)
    size = math.prod(filter_shape)
    one_hot = np.eye(size, dtype=u.dtype_of(lhs)).reshape((size, 1) + filter_shape)
    kernel = np.tile(one_hot, (channels,) + (1,) * (rank - 1))  # (C * size, 1, filter...)
    rhs_positions = dn.rhs_spec  # where (O, I, spatial...) sit in the kernel's own layout
    kernel = np.transpose(kernel, np.argsort(rhs_positions))
    return conv_general_dilated(lhs, jnp.asarray(kernel), window_strides, padding, lhs_dilation,
                                rhs_dilation, dn, feature_group_count=channels,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """A locally connected layer: like a convolution, but with a separate kernel at each output
    position (rhs has the output's spatial shape and C * prod(filter_shape) input features)."""
    lhs, rhs = _as_operand(lhs), _as_operand(rhs)
    dn = conv_dimension_numbers(u.shape(lhs), u.shape(rhs), dimension_numbers)
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dn)
    patches = jnp.transpose(patches, dn.out_spec)  # (N, C * size, spatial...)
    kernel = jnp.transpose(rhs, dn.rhs_spec)         # (O, C * size, spatial...)
    letters = "abcdefghij"[:u.ndim(patches) - 2]
    out = jnp.einsum(f"ni{letters},oi{letters}->no{letters}", patches, kernel)
    return jnp.transpose(out, np.argsort(dn.out_spec))
