"""The process that compiles Numba kernels into the disk cache (see background.py).

    python -m astjax.backends.auto.job <job file>

It imports the generated module (no user code), compiles the kernel for the recorded
signature, writes the outcome beside it and removes the lock. It runs only while it holds one
of the machine's compile slots (see SLOT_START): however many functions turn hot, at most
`slots()` compiles run at once, and each pauses while its caller compiles in the foreground.

Holding a slot, it also compiles the jobs other processes queued meanwhile (smallest first), so
one start-up (importing astjax and Numba: a second of CPU) serves them all. A process whose
job was taken that way finds its job file gone when its turn comes, and waits while the
process that took it lives (its caller watches it, not the other one), then ends.
"""
import glob
import json
import os
import pickle
import sys
import time

TAKEN = ".taken-"  # a job file renamed so (and the pid): that process has claimed it


def main(job_path: str) -> None:
    """Compile the queued jobs, this process's own among them, until none is left."""
    folder = os.path.dirname(job_path)
    numba_cache = os.environ.get("NUMBA_CACHE_DIR") or None  # (as the caller passed it)
    while (job := _claim_next(folder, numba_cache)) is not None:
        _compile_and_report(job)


def _claim(job_path: str):
    """The job at `job_path`, claimed by this process (None: another one claimed it first).
    Its process, if it gets a slot meanwhile, waits while this one lives (SLOT_START)."""
    taken = f"{job_path}{TAKEN}{os.getpid()}"
    try:
        os.rename(job_path, taken)  # (atomic: of two processes claiming, one succeeds)
        with open(taken, "rb") as f:
            job = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError):
        return None
    job["taken"] = taken
    return job


def _claim_next(folder: str, numba_cache):
    """The smallest job queued in `folder` by a live process, for the same Numba cache.
    Smallest first (by its module's size; the oldest of equals): ten hot functions are ready
    sooner on average, and a big kernel (seconds) does not hold up the small ones behind
    it."""
    queued = []
    for path in glob.glob(os.path.join(glob.escape(folder), "*.job")):
        module = path.rsplit(".", 2)[0] + ".py"  # (<module>.<signature tag>.job)
        try:
            queued.append((os.path.getsize(module), os.path.getmtime(path), path))
        except OSError:
            continue
    for *_, path in sorted(queued):
        if _waiting(path[:-len(".job")] + ".lock"):
            job = _claim(path)
            if job is None:
                continue
            if job.get("numba_cache") == numba_cache:
                return job
            os.rename(job["taken"], path)  # (its process compiles it, into its own cache)
    return None


def _waiting(lock_path: str) -> bool:
    """Whether the process named by a job's lock still runs (a job of a process that died
    is left: its caller, if alive, starts it again)."""
    try:
        with open(lock_path, encoding="utf-8") as f:
            pid = int(f.read().strip())
        os.kill(pid, 0)
    except PermissionError:  # another user's live process
        return True
    except (OSError, ValueError):
        return False
    return True


def _compile_and_report(job: dict) -> None:
    start = time.perf_counter()
    try:
        compile_kernel(job)
        outcome = {"ok": True, "seconds": time.perf_counter() - start}
    except Exception as error:  # reported to the caller, which drops the tier
        first = (str(error).strip().splitlines() or [""])[0]
        outcome = {"ok": False, "seconds": time.perf_counter() - start,
                   "error": f"{type(error).__name__}: {first}"}
    outcome["pid"] = os.getpid()  # (which process compiled it)
    from astjax.core.files import discard, write_atomic
    write_atomic(job["done"], json.dumps(outcome))
    discard(job["lock"])
    discard(job["taken"])  # (it holds the module's constants: no need to keep them twice)


def slots() -> int:
    """How many kernels the machine compiles at once: one per two cores this process may
    use (each compile is one thread; the other core stays free for the program). Ten hot
    functions compiling at once on two cores each took 4-10 s and 270 MB; one at a time,
    each is ready in its own compile time and the first ones long before the last."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 2
    return max(1, cores // 2)


# What the compiling process runs, before anything is imported: it waits for a compile slot
# (a lock on one of the files `compile-slot.<i>` beside the job: released by the kernel when
# the process ends, however it ends; tried every 0.1 s, touching the job's lock every 10 s so
# that a long wait is not taken for a dead process), and runs this module if its job is still
# there to compile. The slot count comes as the second argument.
# It runs at normal priority, in a session of its own. At idle priority (Linux's SCHED_IDLE,
# its session's group at nice 19) it got almost no CPU beside XLA, whose thread pool spins
# between operations: from an empty cache, the shared bench's ten kernels were ready 14 s
# after its first round ended, against 6 s at normal priority (8 s at nice 5, 11 s at nice
# 10), and a caller running XLA without a pause could starve its own kernel for good. While
# its caller compiles in the foreground, the caller stops it (background.paused).
SLOT_START = """import os, runpy, sys, time
job, count = sys.argv[1], int(sys.argv[2])
try:
    import fcntl
    slot_files = [open(os.path.join(os.path.dirname(job), f"compile-slot.{i}"), "a")
                  for i in range(count)]
except (ImportError, OSError):  # (no advisory locks, or no files for them: no slots)
    fcntl, slot_files = None, []


def take_slot():
    for slot in slot_files:
        try:
            fcntl.flock(slot, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError:  # (a file system without locks: no slots)
            return True
    return False


waited = 0
while fcntl is not None and os.path.exists(job) and not take_slot():
    waited += 1
    if waited % 100 == 0:  # (a lock untouched for long is taken for abandoned)
        try:
            os.utime(job[:-len(".job")] + ".lock")
        except OSError:
            pass
    time.sleep(0.1)
if os.path.exists(job):
    runpy.run_module("astjax.backends.auto.job", run_name="__main__")
for slot in slot_files:  # (closed, its lock is released: no slot is held while waiting)
    slot.close()
import glob
for taken in glob.glob(glob.escape(job) + ".taken-*"):  # claimed by another: wait for it
    try:
        while os.path.exists(taken):
            os.kill(int(taken.rsplit("-", 1)[1]), 0)
            time.sleep(0.1)
    except (OSError, ValueError):  # it died: this process ends, and its caller starts again
        pass
"""


def compile_kernel(job: dict) -> None:
    from astjax.backends import numba as backend
    from astjax.core.files import one_process_at_a_time
    generated = backend.Generated(job["path"], job["import_name"], job["consts"], job["kernel"])
    with one_process_at_a_time(generated.path), backend.kernel_options():
        generated.kernel().compile(job["signature"])


if __name__ == "__main__":
    main(sys.argv[1])
