"""jaxlib, imported beside astjax's own modules.

The XLA tier answers a function's first call, and jaxlib's import took 0.1-0.2 s of that call.
Most of that import loads its shared library without holding the GIL, so `import astjax` starts
it in a thread and joins it before returning: astjax's own import takes longer, so the wait is
nil, and no thread outlives the import (a fork after it is safe). Skipped when ASTJAX_BACKEND
pins a backend without XLA or jaxlib is not installed. Nothing here imports astjax.
"""
import importlib
import importlib.util
import os
import threading

import numpy  # noqa: F401  (imported here first: the thread's import then only finds it)


def xla_by_default() -> bool:
    """Whether the default backend (`ASTJAX_BACKEND`, else auto) runs on XLA."""
    return (os.environ.get("ASTJAX_BACKEND") or "auto") in ("auto", "xla")


def start():
    """The importing thread, started; None where there is nothing to import."""
    if not xla_by_default() or importlib.util.find_spec("jaxlib") is None:
        return None
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")  # (as the XLA client sets it, first)
    thread = threading.Thread(target=_import_jaxlib, name="astjax: import jaxlib", daemon=True)
    try:
        thread.start()
    except RuntimeError:  # (no threads to be had: the first XLA call imports it instead)
        return None
    return thread


def _import_jaxlib() -> None:
    try:
        for name in ("jaxlib.xla_client", "jaxlib.cpu._lapack", "ml_dtypes"):
            importlib.import_module(name)  # (ml_dtypes: jaxlib's first put of an array)
    except Exception:  # noqa: BLE001 (the XLA backend reports it when it is used)
        pass
