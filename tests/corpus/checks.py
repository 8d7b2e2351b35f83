"""Comparing a transformed function's output with the eager oracle's."""
import numpy as np

from astjax.tree_util import tree_flatten


def tolerance(dtype) -> dict:
    """rtol 1e-6 for float64, 1e-5 for float32 (atol alike, for values near zero)."""
    return dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-6, atol=1e-9)


def assert_trees_match(got, expected, check_dtype=True):
    """Same pytree structure; each leaf of the same shape and dtype (or only dtype kind), values
    allclose at the tolerance of the less precise of the two."""
    got_leaves, got_tree = tree_flatten(got)
    exp_leaves, exp_tree = tree_flatten(expected)
    assert got_tree == exp_tree, f"structure {got_tree} != {exp_tree}"
    for i, (g, e) in enumerate(zip(got_leaves, exp_leaves)):
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape, f"leaf {i}: shape {g.shape} != {e.shape}"
        if check_dtype:
            assert g.dtype == e.dtype, f"leaf {i}: dtype {g.dtype} != {e.dtype}"
        else:
            assert g.dtype.kind == e.dtype.kind, f"leaf {i}: dtype {g.dtype} vs {e.dtype}"
        if e.dtype.kind in "fc":
            low = np.float32 if np.float32 in (g.dtype, e.dtype) else e.dtype
            np.testing.assert_allclose(g, e, **tolerance(low), err_msg=f"leaf {i}")
        else:
            np.testing.assert_array_equal(g, e, err_msg=f"leaf {i}")
