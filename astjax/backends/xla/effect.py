"""Effects: debug_print's values become extra results of the computation, printed in program
order when it returns (XLA has no host call this backend can make mid-computation)."""
from astjax.errors import TransformError

from .emit import LOWER


@LOWER.register("debug_print")
def _debug_print(body, eqn, *values):
    if body.parent is not None:
        raise TransformError("the XLA backend prints debug values only outside loops and "
                             "branches", eqn.loc, hint='use backend="numpy" to print inside them')
    body.effects.append((eqn.params["fmt"], list(values)))
    return []
