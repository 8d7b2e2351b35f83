"""What the distributions share: float promotion, standardising, and -inf outside a support."""
import astjax.numpy as jnp
from .._util import inexact  # noqa: F401  (re-exported: the one promotion)


def standardized(x, loc, scale):
    x, loc, scale = inexact(x, loc, scale)
    return (x - loc) / scale, scale


def within(condition, value, outside=-jnp.inf):
    return jnp.where(condition, value, outside)


def from_log(logpdf):
    """pdf = exp(logpdf), with the same signature."""
    def pdf(*args, **kwargs):
        return jnp.exp(logpdf(*args, **kwargs))
    pdf.__name__ = logpdf.__name__.replace("log", "")
    return pdf


def symmetric(standard_cdf, standard_ppf):
    """(cdf, sf, ppf, isf) of a location-scale family symmetric about loc, from its standard
    cdf and ppf: sf(x) is cdf at the mirrored point, isf(q) = loc - scale * ppf(q)."""
    def cdf(x, loc=0, scale=1):
        return standard_cdf(standardized(x, loc, scale)[0])

    def sf(x, loc=0, scale=1):
        return standard_cdf(-standardized(x, loc, scale)[0])

    def ppf(q, loc=0, scale=1):
        q, loc, scale = inexact(q, loc, scale)
        return loc + scale * standard_ppf(q)

    def isf(q, loc=0, scale=1):
        q, loc, scale = inexact(q, loc, scale)
        return loc - scale * standard_ppf(q)

    return cdf, sf, ppf, isf
