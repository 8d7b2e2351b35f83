"""8 threads make the first calls of jitted functions with new shapes at once (a script: the
test runs it in a subprocess with a timeout). Prints the errors' count, then each error."""
import sys
import threading

import numpy as np

import astjax
import astjax.numpy as jnp

SCALE = np.arange(4.0)


@astjax.jit
def helper(x):  # reads a global array: the interpreter's stack is per thread
    return x * SCALE[1] + 1


def model(x):
    y = x
    for _ in range(3):
        if jnp.sum(y) > 0:
            y = jnp.tanh(y) + helper(y)
    return y


def check(jf, k, errors):
    try:
        for n in range(2, 10):
            x = np.full((n, k + 2), 0.5)
            out = jf(x)
            want = x
            for _ in range(3):
                want = np.tanh(want) + want * 1.0 + 1
            np.testing.assert_allclose(out, want, rtol=1e-12)
    except Exception as e:  # collected, printed, and the test fails on them
        errors.append(f"thread {k}: {type(e).__name__}: {str(e)[:200]}")


if __name__ == "__main__":
    errors = []
    for round in range(int(sys.argv[2])):
        jf = astjax.jit(model, backend=sys.argv[1])
        threads = [threading.Thread(target=check, args=(jf, k, errors)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print(len(errors))
    print("\n".join(errors))
