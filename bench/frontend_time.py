"""Cold compile time of long straight-line programs on the NumPy backend: how the front end
(parsing, the fence, the source passes, specialisation) and code generation grow with the
number of statements.

    python bench/frontend_time.py [--sizes 250 1000 2000]

Each row runs in a fresh process with an empty cache and prints the seconds of the first call
and the seconds per 1,000 statements (flat per-1,000 figures mean linear growth). Each program
is a chain of `y = y * a + b`-like statements on a small array, with a converted `if` every 50
statements (as real programs mix control flow in)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import json, sys, time
import numpy as np
import astjax
import program
t0 = time.perf_counter()
astjax.jit(program.long)(np.linspace(0.1, 1.0, 8))
print(json.dumps({"seconds": time.perf_counter() - t0}))
'''


def program(statements: int) -> str:
    lines = ["import numpy as np", "", "", "def long(x):", "    y = x"]
    for i in range(statements):
        if i % 50 == 49:
            lines += [f"    if y[0] > {i % 7}.0:", "        y = y * 0.5"]
        else:
            lines.append(f"    y = y * {1 + (i % 5) / 100:.2f} + np.sin(y) * 0.01")
    lines.append("    return y")
    return "\n".join(lines) + "\n"


def run(statements: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "program.py"), "w") as f:
            f.write(program(statements))
        with open(os.path.join(folder, "child.py"), "w") as f:
            f.write(CHILD)
        env = dict(os.environ, ASTJAX_CACHE_DIR=os.path.join(folder, "cache"),
                   ASTJAX_BACKEND="numpy", PYTHONPATH=folder + os.pathsep +
                   os.environ.get("PYTHONPATH", ""))
        proc = subprocess.run([sys.executable, os.path.join(folder, "child.py")], env=env,
                              capture_output=True, text=True, cwd=folder)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if not lines:
            sys.stderr.write(proc.stderr[-2000:])
            return float("nan")
        return json.loads(lines[-1])["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 1000, 2000])
    args = parser.parse_args()
    print(f"{'statements':>10} {'seconds':>9} {'s per 1000':>11}")
    for n in args.sizes:
        seconds = run(n)
        print(f"{n:10d} {seconds:9.2f} {seconds * 1000 / n:11.2f}")


if __name__ == "__main__":
    main()
