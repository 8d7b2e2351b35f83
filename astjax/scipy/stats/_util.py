"""What the distributions share: float promotion, standardising, and -inf outside a support."""
import astjax.numpy as jnp
from astjax.scipy.special import _float  # noqa: F401  (re-exported)


def standardized(x, loc, scale):
    x, loc, scale = _float(x, loc, scale)
    return (x - loc) / scale, scale


def within(condition, value, outside=-jnp.inf):
    return jnp.where(condition, value, outside)


def from_log(logpdf):
    """pdf = exp(logpdf), with the same signature."""
    def pdf(*args, **kwargs):
        return jnp.exp(logpdf(*args, **kwargs))
    pdf.__name__ = logpdf.__name__.replace("log", "")
    return pdf
