"""Batching of conv_general_dilated (JAX's rule): a batched input folds its batch into the
input's batch axis; a batched kernel folds into the output features; both batched, the batch
becomes extra feature (or batch) groups."""
from astjax.core.bind import aval, bind

from ..ad.convolution import _reshape_axis_into, _reshape_axis_out_of
from .util import BATCH


def _conv(lhs, rhs, params, **changes):
    return bind("conv_general_dilated", lhs, rhs, **{**params, **changes})


def _shifted(spec):
    """A spec of the unbatched operand, seen with the batch axis at 0 in front."""
    return tuple(a + 1 for a in spec)


@BATCH.register("conv_general_dilated")
def _batch_conv(args, dims, *, axis_size, **params):
    (lhs, rhs), (ld, rd) = args, dims
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    groups, batch_groups = params["feature_group_count"], params["batch_group_count"]
    size = axis_size
    if ld is not None and rd is not None:
        if batch_groups > 1:
            new_lhs = _reshape_axis_into(0, lhs_spec[0], lhs)
            changes = {"batch_group_count": batch_groups * size}
        else:
            new_lhs = _reshape_axis_into(0, lhs_spec[1], lhs)
            changes = {"feature_group_count": groups * size}
        new_rhs = _reshape_axis_into(0, rhs_spec[0], rhs)
        out = _conv(new_lhs, new_rhs, params, **changes)
        return _to_front(_reshape_axis_out_of(out_spec[1], size, out), out_spec[1]), 0
    if ld is not None:
        if batch_groups == 1:
            out = _conv(_reshape_axis_into(0, lhs_spec[0], lhs), rhs, params)
            return _to_front(_reshape_axis_out_of(out_spec[0], size, out), out_spec[0]), 0
        # the batch groups must stay outermost in the input's batch axis: factor them out,
        # fold the vmapped batch in beneath them, and put them back
        new_lhs = _reshape_axis_out_of(lhs_spec[0] + 1, batch_groups, lhs)
        new_lhs = _reshape_axis_into(0, lhs_spec[0] + 1, new_lhs)
        new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
        out = _conv(new_lhs, rhs, params)
        return _to_front(_reshape_axis_out_of(out_spec[0], size, out), out_spec[0]), 0
    if groups == 1 and batch_groups == 1:
        out = _conv(lhs, _reshape_axis_into(0, rhs_spec[0], rhs), params)
        return _to_front(_reshape_axis_out_of(out_spec[1], size, out), out_spec[1]), 0
    # the feature (or batch) groups must stay outermost in the kernel's output features
    count = groups if groups > 1 else batch_groups
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + 1, count, rhs)
    new_rhs = _reshape_axis_into(0, rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = _conv(lhs, new_rhs, params)
    out = _reshape_axis_out_of(out_spec[1], count, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, size, out)
    out = _reshape_axis_into(out_spec[1], out_spec[1] + 1, out)
    return _to_front(out, out_spec[1]), 0


def _to_front(x, axis):
    """x with axis `axis` (the batch, split out of an operand axis) moved to 0."""
    if axis == 0:
        return x
    order = (axis,) + tuple(i for i in range(aval(x).ndim) if i != axis)
    return bind("transpose", x, permutation=order)
