"""Cold compile time of the Numba backend: how it grows with the size of a program.

Each row runs in a fresh process with empty caches (astjax's and Numba's), calls a jitted
function once and reports the seconds of that first call (front end, code generation and
Numba's compile), the number of core-form equations it compiled (nested bodies included),
and seconds per 100 equations.  The programs: `layers(n)`, n residual blocks of a small MLP
(matmul, bias, tanh, a row normalisation) differentiated with value_and_grad, and the shared
bench's mlp_value_and_grad.

    python bench/compile_time.py [--sizes 1 2 4 8]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, sys, time
import numpy as np
sys.path.insert(0, {bench!r})
import astjax
import astjax.numpy as jnp

def block(h, w):
    h = jnp.tanh(h @ w + 0.1) + h
    return h / jnp.sqrt(jnp.mean(h * h, axis=-1, keepdims=True) + 1e-6)

def layers(ws, x):
    h = x
    for w in ws:
        h = block(h, w)
    return jnp.mean(h ** 2)

def count(func):
    from astjax.core.ir import sub_funcs
    return sum(1 + sum(count(f) for f in sub_funcs(e)) for e in func.eqns)

rng = np.random.default_rng(0)
name, n = sys.argv[1], int(sys.argv[2])
if name == "layers":
    fn = astjax.jit(astjax.value_and_grad(layers), backend="numba")
    args = ([rng.standard_normal((64, 64)).astype(np.float32) * 0.1 for _ in range(n)],
            rng.standard_normal((32, 64)).astype(np.float32))
else:
    os.environ["ASTJAX_BACKEND"] = "numba"
    import workloads
    fn, args = next((f, a) for c, f, a in workloads.cases() if c == name)
t0 = time.perf_counter()
fn(*args)
seconds = time.perf_counter() - t0
print(json.dumps({{"case": name, "n": n, "seconds": seconds, "equations": count(fn.last.spec.func)}}))
'''


def shared_bench() -> str:
    """The shared bench's folder: ../shared/bench beside the checkout (or a level up)."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for up in ("..", os.path.join("..", "..")):
        path = os.path.normpath(os.path.join(repo, up, "shared", "bench"))
        if os.path.isdir(path):
            return path
    return os.path.join(repo, "..", "shared", "bench")


def run(name: str, n: int) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, ASTJAX_CACHE_DIR=os.path.join(cache, "astjax"),
                   NUMBA_CACHE_DIR=os.path.join(cache, "numba"))
        script = os.path.join(cache, "program.py")  # astjax compiles from source files
        with open(script, "w") as f:
            f.write(CHILD.format(bench=shared_bench()))
        proc = subprocess.run([sys.executable, script, name, str(n)], env=env,
                              capture_output=True, text=True)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if not lines:
            sys.stderr.write(proc.stderr[-2000:])
            return {"case": name, "n": n, "error": True}
        return json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[1, 2, 4, 8])
    a = ap.parse_args()
    rows = [run("layers", n) for n in a.sizes] + [run("mlp_value_and_grad", 0)]
    print(f"{'program':24} {'equations':>9} {'cold s':>8} {'s / 100 eqns':>13}")
    for row in rows:
        if row.get("error"):
            print(f"{row['case']:24} error")
            continue
        label = f"layers({row['n']})" if row["case"] == "layers" else row["case"]
        per = 100 * row["seconds"] / max(row["equations"], 1)
        print(f"{label:24} {row['equations']:9d} {row['seconds']:8.2f} {per:13.2f}")


if __name__ == "__main__":
    main()
