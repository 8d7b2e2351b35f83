"""What the discrete distributions share: -inf off the non-negative integers."""
import astjax.numpy as jnp

from ._util import inexact


def shifted(k, loc):
    k, loc = inexact(k, loc)
    return k - loc


def on_counts(y, value, upper=None):
    """value where y is a non-negative integer (at most `upper`), -inf elsewhere."""
    ok = (y >= 0) & (y == jnp.floor(y))
    if upper is not None:
        ok = ok & (y <= upper)
    return jnp.where(ok, value, -jnp.inf)
