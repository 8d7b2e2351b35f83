"""The import hook: a JAX program runs on astjax unchanged.

    python -m astjax run script.py [args...]      (or: astjax run script.py)
    astjax.install_hook()                         (then `import jax` gives astjax)

A finder at the front of `sys.meta_path` answers `import jax` and `import jax.<sub>` with the
astjax module of the same name (`jax.numpy` -> `astjax.numpy`, ...). A JAX module astjax has
no counterpart for fails with an ImportError naming it. Nothing is traced or executed
differently: the program's own modules import as usual, and astjax compiles the functions it
transforms from their source at the first call.
"""
import importlib
import importlib.abc
import importlib.util
import sys

from .errors import AstjaxError


class _JaxToAstjax(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name != "jax" and not name.startswith("jax."):
            return None
        counterpart = "ast" + name
        if importlib.util.find_spec(counterpart) is None:
            raise ImportError(f"{name} has no astjax counterpart yet (astjax provides jax, "
                              "jax.numpy, jax.lax, jax.nn, jax.random, jax.scipy (linalg, "
                              "optimize, special, stats), jax.tree_util, jax.debug, jax.sharding, "
                              "jax.experimental (io_callback, ode, shard_map))", name=name)
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return importlib.import_module("ast" + spec.name)

    def exec_module(self, module):
        # the import system stamped the alias spec on the shared module: give it back its own
        module.__spec__ = importlib.util.find_spec(module.__name__)


_FINDER = _JaxToAstjax()


def install_hook() -> None:
    """From now on `import jax` (and its submodules astjax provides) imports astjax."""
    real = sys.modules.get("jax")
    if real is not None and not getattr(real, "__name__", "").startswith("astjax"):
        raise AstjaxError("jax is already imported, so `import jax` cannot be redirected",
                          hint="call astjax.install_hook() before anything imports jax, "
                               "or run the program with `python -m astjax run script.py`")
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall_hook() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == "jax" or n.startswith("jax.")]:
        if getattr(sys.modules[name], "__name__", "").startswith("astjax"):
            del sys.modules[name]


def run_script(path: str, args: list) -> None:
    """Run a Python file as __main__ with the hook installed, its folder first on sys.path
    (as `python dir/script.py` puts it, so the script's sibling modules import)."""
    import os
    import runpy
    install_hook()
    _hook_in_children()
    sys.argv = [path] + list(args)
    folder = os.path.dirname(os.path.abspath(path))
    if sys.path and sys.path[0] in ("", os.getcwd()) and folder != os.getcwd():
        sys.path[0] = folder  # `python -m` put the current folder there; python script.py would not
    else:
        sys.path.insert(0, folder)
    runpy.run_path(path, run_name="__main__")


def _hook_in_children() -> None:
    """Child interpreters (multiprocessing's spawn workers, Python subprocesses) get the hook
    too: hook_site/sitecustomize.py, first on their PYTHONPATH, installs it at startup."""
    import os
    site = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hook_site")
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if site not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([site] + paths)
    os.environ["ASTJAX_IMPORT_HOOK"] = "1"
