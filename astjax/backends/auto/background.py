"""Numba kernels compiled in another process, into Numba's disk cache.

Numba's compiler is mostly Python: compiled in a thread of the caller it would hold the GIL,
and every call the caller makes meanwhile would wait for it. A separate process compiles on
the other core and leaves the caller alone; when it is done, loading the kernel in the caller
reads machine code from the cache.

The files of one job sit beside the generated module, named by the kernel's signature:
`.job` (what to compile, with the module's constants), `.lock` (the process compiling
it: created exclusively, so of two processes wanting the same kernel one compiles and the
other waits for its result) and `.done` (the outcome, JSON). The compiling process runs in
its own session: the caller's exit never waits for it, and it finishes (for the next process)
when the caller forks or ends. A lock whose process died is taken over. Compiling processes
queue for the machine's compile slots (`job.py`); one that holds a slot also compiles what
the others queued meanwhile, while they wait for it.
"""
import atexit
import contextlib
import glob
import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time

from astjax.core.files import cache_root, discard, write_atomic
from .job import SLOT_START, slots

POLL_SECONDS = 0.05  # how often a waiting caller looks for the outcome
STALE_LOCK_SECONDS = 600.0  # a lock this old is abandoned, whatever its process


class Job:
    """One kernel signature compiled by another process (see the module docstring)."""

    def __init__(self, generated, signature: tuple):
        self.generated, self.signature = generated, signature
        tag = hashlib.sha256(repr(signature).encode()).hexdigest()[:12]
        base = f"{generated.path[:-3]}.{tag}"
        self.done_path, self.lock_path = base + ".done", base + ".lock"
        self.job_path = base + ".job"
        self._next_poll = 0.0
        self.retries = 1  # a compiling process that dies is replaced once

    def start(self) -> str:
        """Compile in another process, unless the outcome exists or a process is at it; says
        which ("compiled before", "another process compiles it", "a new process compiles
        it")."""
        if os.path.exists(self.done_path):
            return "compiled before"
        if not self._take_lock():
            return "another process compiles it"
        try:
            self._write_inputs()
            self._spawn()
        except BaseException:
            discard(self.lock_path)
            raise
        return "a new process compiles it"

    def outcome(self):
        """None while compiling, else {"ok": bool, "seconds": float, "error": str}."""
        now = time.monotonic()
        if now < self._next_poll:
            return None
        self._next_poll = now + POLL_SECONDS
        try:
            with open(self.done_path, encoding="utf-8") as f:
                outcome = json.load(f)
            if isinstance(outcome, dict) and isinstance(outcome.get("ok"), bool):
                reap()
                return outcome
        except FileNotFoundError:
            pass
        except (OSError, ValueError, UnicodeDecodeError):
            discard(self.done_path)  # unreadable: compile (or read the cache) again
        if not self._compiler_alive():
            if self.retries <= 0:
                return {"ok": False, "error": "the compiling process died", "seconds": 0.0}
            self.retries -= 1
            discard(self.lock_path)
            self.start()
        return None

    def wait(self, timeout: float):
        """The outcome, waiting at most `timeout` seconds for it (tests, and a caller that
        prefers the kernel to anything else)."""
        end = time.monotonic() + timeout
        while True:
            outcome = self.outcome()
            if outcome is not None or time.monotonic() > end:
                return outcome
            time.sleep(POLL_SECONDS)

    def _take_lock(self) -> bool:
        os.makedirs(os.path.dirname(self.lock_path), exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                if self._compiler_alive():
                    return False
                discard(self.lock_path)  # its process died: take it over
                continue
            with os.fdopen(fd, "w") as f:
                f.write(str(os.getpid()))
            return True
        return False

    def _compiler_alive(self) -> bool:
        """Whether the lock's process still runs (a young lock not yet holding its pid is)."""
        try:
            age = time.time() - os.path.getmtime(self.lock_path)
            with open(self.lock_path, encoding="utf-8") as f:
                text = f.read().strip()
        except OSError:
            return os.path.exists(self.done_path)
        if age > STALE_LOCK_SECONDS:
            return False
        if not text.isdigit():
            return age < 5.0
        try:
            os.kill(int(text), 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's live process
            return True
        _resume_if_orphaned(int(text))
        return True

    def _write_inputs(self) -> None:
        import numba
        g = self.generated
        job = {"path": g.path, "import_name": g.import_name, "kernel": g.kernel_name,
               "signature": self.signature, "consts": g.consts,
               "done": self.done_path, "lock": self.lock_path,
               "numba_cache": numba.config.CACHE_DIR or None}
        write_atomic(self.job_path, pickle.dumps(job))

    def _spawn(self) -> None:
        # (ASTJAX_BACKEND=numba: its `import astjax` leaves jaxlib out, 80 MB it never uses)
        env = dict(os.environ, ASTJAX_CACHE_DIR=cache_root(), ASTJAX_BACKEND="numba")
        import numba
        if numba.config.CACHE_DIR:  # (a private folder chosen for this process: share it)
            env["NUMBA_CACHE_DIR"] = numba.config.CACHE_DIR
        log = open(self.lock_path[:-5] + ".log", "wb")
        with log:
            process = subprocess.Popen(
                [sys.executable, "-c", SLOT_START, self.job_path, str(slots())],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
                start_new_session=True, close_fds=True)
        with open(self.lock_path, "w", encoding="utf-8") as f:
            f.write(str(process.pid))  # the lock now names the process compiling
        _RUNNING.append(process)


def compiling_now(folder: str) -> bool:
    """Whether a process holds one of the compile slots in `folder` (a kernel compiles on
    this machine now, for this process or another): timings taken meanwhile are not the
    machine's own (see tiered.py)."""
    try:
        import fcntl
    except ImportError:  # (no advisory locks: no slots to look at)
        return False
    for path in glob.glob(os.path.join(glob.escape(folder), "compile-slot.*")):
        try:
            with open(path, "a") as slot:
                try:
                    fcntl.flock(slot, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return True
                # (taken for an instant; closing the file releases it)
        except OSError:
            continue
    return False


# The compiling processes this one started, reaped when they end (never waited for).
_RUNNING: list = []


def reap() -> None:
    _RUNNING[:] = [p for p in _RUNNING if p.poll() is None]


# Foreground compiles pause the background ones. On two cores a first call's XLA compile took
# twice as long beside compiling processes, even at idle priority: they take no CPU time it
# wants, but share the caches and memory bandwidth.
_PAUSE = threading.Lock()
_paused_by = 0  # how many foreground compiles are running in this process


@contextlib.contextmanager
def paused():
    """The compiling processes this one started are stopped (SIGSTOP) inside the block, and
    continue (SIGCONT) when the last such block of any thread ends."""
    global _paused_by
    with _PAUSE:
        _paused_by += 1
        if _paused_by == 1:
            _signal_running(getattr(signal, "SIGSTOP", None))
    try:
        yield
    finally:
        with _PAUSE:
            _paused_by -= 1
            if _paused_by == 0:
                _signal_running(getattr(signal, "SIGCONT", None))


def _signal_running(signum) -> None:
    if signum is None:  # (no job control here: nothing is paused)
        return
    for process in _RUNNING:
        if process.poll() is None:
            try:
                os.kill(process.pid, signum)
            except OSError:
                pass


def _resume_if_orphaned(pid: int) -> None:
    """A compiling process left stopped by a caller that died inside `paused` continues (on
    Linux, where /proc tells a process's state and parent)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            state, parent = f.read().rsplit(")", 1)[1].split()[:2]
        if state == "T" and (parent == "1" or not os.path.exists(f"/proc/{parent}")):
            os.kill(pid, signal.SIGCONT)
    except (OSError, ValueError, AttributeError):
        pass


def _forget_in_child() -> None:
    """A forked child neither pauses nor reaps its parent's compiling processes."""
    global _paused_by
    _RUNNING.clear()
    _paused_by = 0


@atexit.register
def _leave_running() -> None:
    """Exit without waiting: a compiling process finishes on its own (for the next process),
    and is not reported as a leaked child."""
    for process in _RUNNING:
        if process.poll() is None:
            process.returncode = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
