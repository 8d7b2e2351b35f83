"""A parallel Numba kernel runs, then `multiprocessing` forks a child that runs it again."""
import multiprocessing

import numpy as np

import astjax
import astjax.numpy as jnp


def model(x):
    return jnp.tanh(x) * 2 + jnp.sum(x)


kernel = astjax.jit(model, backend="numba")
X = np.linspace(-1, 1, 200_000)  # large enough for the parallel loop


def child(queue):
    queue.put(float(np.asarray(kernel(X)).sum()))


if __name__ == "__main__":
    parent = float(np.asarray(kernel(X)).sum())
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    process.join(120)
    print(process.exitcode, parent, queue.get(timeout=10) if process.exitcode == 0 else "none")
