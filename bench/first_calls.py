"""First calls from an empty cache, as on a new machine, against JAX's first calls.

    python bench/first_calls.py [--experiments 3] [--rounds 3] [case ...]

Each experiment empties a cache folder of its own (ASTJAX_CACHE_DIR, so the user's cache is
left alone), then runs the shared bench's run.py for astjax and for JAX, alternated, `rounds`
times: round 1 finds nothing on disk, the later rounds find what the rounds before compiled.
Prints each case's first call (seconds) and its ratio to JAX's in the same round, and the
median of the rounds' time ratios that compare.py would quote.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))
import compare  # noqa: E402  (the shared bench's runner of run.py)


def run(impl: str, cases: list, cache: str) -> dict:
    """compare.py's run of one implementation (case -> its row), with `cache` as the cache."""
    os.environ["ASTJAX_CACHE_DIR"] = cache  # (compare.run passes our environment on)
    return compare.run(impl, cases)


def experiment(rounds: int, cases: list) -> dict:
    """case -> [(ours, JAX's) row per round]."""
    cache = tempfile.mkdtemp(prefix="astjax-first-calls-")
    per_case: dict = {}
    try:
        for _ in range(rounds):
            ours, theirs = run("astjax", cases, cache), run("jax", cases, cache)
            for name, t in theirs.items():
                per_case.setdefault(name, []).append((ours.get(name), t))
    finally:
        subprocess.run(["pkill", "-f", "astjax.backends.auto.job"], check=False)
        shutil.rmtree(cache, ignore_errors=True)
    return per_case


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--experiments", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    results = [experiment(a.rounds, a.cases) for _ in range(a.experiments)]
    print(f"{'case':22} {'empty a/j s (ratio)':>44} {'warm ratios':>24} {'median':>14}")
    for name in results[0]:
        empty, warm, medians = [], [], []
        for per_case in results:
            pairs = per_case.get(name, [])
            if any(o is None or "error" in o for o, _ in pairs):
                empty.append("error")
                continue
            o, t = pairs[0]
            empty.append(f"{o['first_s']:.3f}/{t['first_s']:.3f} ({o['first_s'] / t['first_s']:.2f})")
            warm += [f"{o['first_s'] / t['first_s']:.2f}" for o, t in pairs[1:]]
            if len(pairs) > 1:
                medians.append(statistics.median(o["median_s"] / t["median_s"] for o, t in pairs))
        print(f"{name:22} {', '.join(empty):>44} {' '.join(warm):>24} "
              f"{' '.join(f'{m:.2f}' for m in medians):>14}")


if __name__ == "__main__":
    main()
