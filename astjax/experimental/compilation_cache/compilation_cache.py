"""`jax.experimental.compilation_cache.compilation_cache`, which JAX programs call to turn on
JAX's persistent cache. astjax keeps its compiled code on disk always (in ASTJAX_CACHE_DIR, or
~/.cache/astjax), so these calls record the folder asked for and change nothing."""
_state = {"dir": None}


def set_cache_dir(path) -> None:
    _state["dir"] = str(path)


def initialize_cache(path) -> None:
    set_cache_dir(path)


def is_initialized() -> bool:
    return _state["dir"] is not None


def reset_cache() -> None:
    _state["dir"] = None
