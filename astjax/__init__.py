"""astjax: JAX's programming model by static source-to-source compilation.

    import astjax as jax
    import astjax.numpy as jnp
"""
import sys as _sys

from . import config, debug, lax, nn, numpy, tree_util  # noqa: F401
from .batching import vmap  # noqa: F401
from .custom import checkpoint, custom_jvp, custom_vjp, remat  # noqa: F401
from .errors import AstjaxError  # noqa: F401
from .frontend import resolve as _resolve
from .hook import install_hook, uninstall_hook  # noqa: F401
from .jit import jit  # noqa: F401
from .rewriters import ad as _ad, batching as _batching  # noqa: F401  (every rule table complete)
from .show import make_source, show, show_passes  # noqa: F401
from .transforms import grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp  # noqa: F401

__version__ = "0.1.0.dev0"

_resolve.register_module("jax", _sys.modules[__name__])  # user code's `import jax` means astjax
