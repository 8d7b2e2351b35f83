"""Started by `python -m astjax run`: child interpreters (multiprocessing's spawn and
forkserver workers, subprocesses of Python) install astjax's import hook before they run
anything, so their `import jax` gives astjax as the parent's does.

This folder is put first on PYTHONPATH together with ASTJAX_IMPORT_HOOK=1; a sitecustomize
module of the environment's own, further down the path, still runs after this one."""
import importlib.util
import os
import sys


def _chain_to_the_next_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    for folder in sys.path:
        if not folder or os.path.abspath(folder) == here:
            continue
        path = os.path.join(folder, "sitecustomize.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_sitecustomize_after_astjax", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


if os.environ.get("ASTJAX_IMPORT_HOOK") == "1":
    try:
        import astjax
        astjax.install_hook()
    except Exception as error:  # never stop the child from starting
        print(f"astjax: the import hook was not installed in this process: {error}",
              file=sys.stderr)
_chain_to_the_next_sitecustomize()
