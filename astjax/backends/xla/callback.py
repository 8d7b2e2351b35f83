"""Host calls: a pure_callback is jaxlib's CPU callback into the user's function (see
`Body.host_call`), its results checked against the declared shapes and dtypes.

An exception the function raises fails the computation with jaxlib's error, which holds only
its text: the exception itself is kept (`failed`) and raised in its place (`reraised`)."""
import contextlib
import threading

import numpy as np

from astjax.core.host import conform
from astjax.errors import TransformError

from .emit import LOWER


_failure = threading.local()  # (jaxlib runs a host call on the thread that executes)


def failed(call):
    """`call`, keeping the exception it raises for `reraised`."""
    def kept(*arrays):
        try:
            return call(*arrays)
        except BaseException as error:
            _failure.error = error
            raise
    return kept


@contextlib.contextmanager
def reraised():
    """Raise the exception a host call raised in place of the computation's error."""
    _failure.error = None
    try:
        yield
    except Exception:
        error, _failure.error = getattr(_failure, "error", None), None
        if error is None:
            raise
        error.raised_by_host_call = True  # (not XLA's failure: see auto's tiers)
        raise error.with_traceback(error.__traceback__) from None


def host_results(callback, results):
    """The Python function the host call runs: `callback`'s results as declared, in the
    row-major layout XLA reads."""
    def call(*arrays):
        return tuple(np.asarray(a, order="C") for a in conform(callback(*arrays), results,
                                                               callback))
    return failed(call)


@LOWER.register("pure_callback")
def lower_host_call(body, eqn, *operands):
    """pure_callback and io_callback: the user's function, its results as the eqn's."""
    results = tuple(v.aval for v in eqn.outs)
    return body.host_call(host_results(eqn.params["callback"], results), list(operands),
                          [(a.shape, a.dtype) for a in results], hint="callback")


@LOWER.register("undefined_derivative")
def _undefined_derivative(body, eqn, *operands):
    raise TransformError(eqn.params["message"], eqn.params["loc"])
