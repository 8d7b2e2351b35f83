"""Effects carry no derivative: debug_print prints the primal values only."""
from .rules import no_derivative

no_derivative("debug_print")
