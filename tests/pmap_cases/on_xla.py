"""Runs pmapped programs on 4 forced XLA host devices and prints their results (as JSON); the
test compares them with the single-device results. Run as a script: XLA_FLAGS must be set
before jaxlib starts."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import astjax  # noqa: E402
from pmap_cases import programs  # noqa: E402
from pmap_cases.inputs import INPUTS  # noqa: E402


def run(name):
    fun, argnums = INPUTS[name]
    out = astjax.pmap(fun(), axis_name="i", backend="xla")(*argnums())
    return [np.asarray(leaf).tolist() for leaf in astjax.tree_util.tree_leaves(out)]


if __name__ == "__main__":
    results = {"devices": astjax.device_count()}
    for name in INPUTS:
        try:
            results[name] = run(name)
        except Exception as e:  # reported, and the test fails on it
            results[name] = f"{type(e).__name__}: {e}"
    try:
        astjax.pmap(programs.coupled_loss, axis_name="i", backend="xla")(np.ones((5, 2)))
    except Exception as e:
        results["too_many"] = f"{type(e).__name__}: {e}"
    print(json.dumps(results))
