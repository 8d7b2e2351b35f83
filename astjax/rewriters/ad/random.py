"""Derivatives of the random-bit primitives: random bits carry none (a key is not
differentiated; `normal(key) * sigma` differentiates sigma through the arithmetic after)."""
from .rules import no_derivative

no_derivative("threefry2x32")
