"""The process that compiles one Numba kernel into the disk cache (see background.py).

    python -m astjax.backends.auto.job <job file>

It imports the generated module (no user code), compiles the kernel for the recorded
signature, writes the outcome beside it and removes the lock. It runs at idle priority from
its first instruction (see IDLE_START): it never takes CPU time the process that asked for it
could use."""
import json
import pickle
import sys
import time


def main(job_path: str) -> None:
    with open(job_path, "rb") as f:
        job = pickle.load(f)
    start = time.perf_counter()
    try:
        compile_kernel(job)
        outcome = {"ok": True, "seconds": time.perf_counter() - start}
    except Exception as error:  # reported to the caller, which drops the tier
        first = (str(error).strip().splitlines() or [""])[0]
        outcome = {"ok": False, "seconds": time.perf_counter() - start,
                   "error": f"{type(error).__name__}: {first}"}
    from astjax.core.files import discard, write_atomic
    write_atomic(job["done"], json.dumps(outcome))
    discard(job["lock"])
    discard(job_path)  # (it holds the module's constants: no need to keep them twice)


# What the compiling process runs: Linux's idle scheduling class where there is one (the
# lowest nice elsewhere), set before anything is imported (astjax's own import is a second of
# CPU; at normal priority it slowed the caller's XLA compiles twofold), then this module.
# The process leads a session of its own, and where Linux groups sessions ("autogroup") it
# shares the CPU between them fairly whatever the priorities inside: the group's own nice is
# raised too (without it, XLA's two-thread loops ran 1.85x slower beside a compile, 1.2x with).
IDLE_START = """import os, runpy
try:
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
except (AttributeError, OSError):
    if hasattr(os, "nice"):
        os.nice(19)
try:
    with open("/proc/self/autogroup", "w") as group:
        group.write("19")
except OSError:
    pass
runpy.run_module("astjax.backends.auto.job", run_name="__main__")
"""


def compile_kernel(job: dict) -> None:
    from astjax.backends import numba as backend
    generated = backend.Generated(job["path"], job["import_name"], job["consts"], job["kernel"])
    with backend.kernel_options():
        generated.kernel().compile(job["signature"])


if __name__ == "__main__":
    main(sys.argv[1])
