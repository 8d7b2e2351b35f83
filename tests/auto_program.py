"""Run by test_auto_backend.py in fresh processes:

    python auto_program.py settle   # call until a tier is chosen; prints STAGE <stage> <winner>
    python auto_program.py exit     # return while the Numba kernel compiles; prints EXIT <time>
    python auto_program.py fork     # fork while it compiles; both processes settle

Every result is checked against NumPy; the `astjax` log goes to stdout (LOG lines)."""
import logging
import os
import sys
import time

import numpy as np

import astjax as jax
import astjax.numpy as jnp
from astjax.backends.auto import tiered


def program(x, y):
    return jnp.sum(jnp.tanh(x * y + 1.0) ** 2, axis=-1)


def reference(x, y):
    return np.sum(np.tanh(x * y + 1.0) ** 2, axis=-1)


X, Y = np.linspace(0.0, 1.0, 3000).reshape(30, 100), np.linspace(-1.0, 1.0, 100)


def settle(f, seconds=240.0) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        np.testing.assert_allclose(f(X, Y), reference(X, Y), rtol=1e-10)
        if f.last.call.stage == "settled":
            break
        time.sleep(0.01)
    return f"STAGE {f.last.call.stage} {f.last.call.winner}"


def main(mode: str) -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="LOG %(message)s")
    tiered.HOT_CALLS = 1
    f = jax.jit(program, backend="auto")
    f(X, Y)
    f(X, Y)  # hot: the kernel compiles in another process from here on
    if mode == "exit":
        print("EXIT", time.time(), flush=True)
        return
    if mode == "fork":
        child = os.fork()
        line = settle(f)
        print(("CHILD " if child == 0 else "PARENT ") + line, flush=True)
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        return
    print(settle(f), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
