"""One signature's tiers (see the package docstring): which tier runs a call, and when to move.

The stages, in order: `first` (XLA, or NumPy where XLA failed, runs every call while the
function is not hot; where one NumPy call costs less than XLA's compile, NumPy answers new
sizes while XLA compiles them in a thread, and where it does not but the compile is long, an
XLA executable compiled without LLVM's optimisation answers instead), `compiling` (the Numba
kernel is compiled in another process), `tuning` (the kernel agreed with the first tier on a
real call; calls go to each in turn, in timed runs) and `settled` (the winner runs every call;
a call whose sizes break a fact the kernel relies on still goes to the first tier).
"""
import logging
import math
import os
import threading
import time
import warnings
import weakref

import numpy as np

from astjax.core.concretize import concretize, size_env, size_sources, sizes_of
from astjax.core.dims import Facts, current_facts, recording
from astjax.core.ir import Func, sub_funcs
from astjax.core.prims.control import OutOfTime, deadline
from astjax.core.simplify import effectful

from . import estimate, record
from .background import Job, compiling_now, paused

log = logging.getLogger("astjax")

HOT_CALLS = 10      # a function called this often is worth a Numba kernel...
HOT_SECONDS = 0.2   # ...and so is one that has taken this long in all
# ...unless its kernel would take longer than this to compile: then it waits until the function
# has run that long itself (ski rental: pay for the purchase once the rent has come to as
# much). Compiling takes a core from the program all the while, and the program may end first:
# JAX's mnist_vae example ran its epochs at twice JAX's time beside two 30 s compiles, and
# ended before they paid off.
LONG_COMPILE_S = 10.0
TRIALS = 4          # timed calls per tier before choosing...
CLOSE_TRIALS = 10   # ...and up to this many when the two are a close call (record.CLOSE)
# While timing, calls go to one tier RUN at a time and the first of each run is not timed:
# after a call, a tier's worker threads spin for a while, and the other tier's call would pay
# for them (alternating call by call, an MLP's gradient read 3.9 ms a call on its Numba
# kernel, which takes 2.8 ms when called alone, and the choice went to XLA).
RUN = 3
MAX_CLASSES = 4     # Numba kernels per function for its sizes' classes, the first one included
# A choice against the Numba kernel timed while a kernel compiled on the machine (for any
# process) is provisional: its calls ran beside the compile, which slows a parallel kernel
# more than XLA (the repo bench's vmap_attention, timed beside another kernel's compile,
# chose XLA at 0.88 ms a call against Numba's 1.05; alone, Numba takes 0.58). The function
# looks this often whether the compiles have ended, and times the two once more when they
# have.
RETIME_POLL_S = 0.25
CROSS_PROCESS = ("process_allreduce", "process_allgather", "process_index")
HOST_CALLS = ("pure_callback", "io_callback", "debug_callback")
# NumPy answers a first call it does in under this share of XLA's compile and first call
LIGHT_SHARE = 0.8
QUICK_COMPILE_S = 0.15  # an XLA compile estimated this long is first answered by a quick one
QUICK_SHARE = 0.5   # ...if the quick executable's call costs under this share of the compile
# NumPy answers a function with while loops (under a deadline) if this many trips of each
# would take it under LIGHT_SHARE of XLA's compile and first call
WHILE_TRIPS = 4


class Tiered:
    """The auto backend's callable for one function (all its sizes)."""

    def __init__(self, func: Func, origin: str):
        self.func, self.origin, self.name = func, origin, func.name
        self.sources = size_sources(func)
        self.pinned = pinned(func)
        self.first = "xla"
        self._xla: dict = {}       # concrete sizes -> XLA callable
        self._waiting: dict = {}   # concrete sizes -> XLA callable to compile behind NumPy
        self._behind: dict = {}    # concrete sizes -> the thread compiling them for XLA
        self._behind_failed: dict = {}  # concrete sizes -> why that compile failed
        self._behind_lock = threading.Lock()
        self._quick: dict = {}     # concrete sizes -> unoptimised XLA answering meanwhile
        self._budget: dict = {}    # concrete sizes -> seconds NumPy's while loops may take
        self._compiled: dict = {}  # concrete sizes -> set when their compile behind has ended
        self._compiles = 0         # XLA compiles in a caller's thread (those calls: not timed)
        self._numpy = None
        self.numba = None          # the Numba tier's callable, once it agrees
        # What the specialisation knows of sizes (`x.shape[0] == 2`, so a 2-vector can live
        # in scalars) seeds what the Numba kernel relies on; it adds its own choices.
        known = current_facts()
        self.specialised = list(known.items) if known is not None else []
        self.numba_facts = Facts(items=list(self.specialised))
        self._facts_by_sizes: dict = {}  # sizes -> whether they keep those facts
        self._required_by_sizes: dict = {}  # ...and those its code relies on
        # Kernels for sizes in other size classes than the first kernel's (see `_other_class`)
        self.classes: list = []    # (its facts, its kernel)
        self._class_of: dict = {}  # sizes -> the kernel serving them (False: none may)
        self._class_job = None     # (Job, Generated, Facts) compiling one now
        self._class_ready = None   # (kernel, Facts) compiled, waiting for a call to check it
        self.no_more_classes = False  # (one failed or disagreed)
        self.generated = self.job = None
        self.stage, self.calls, self.seconds = "first", 0, 0.0
        self._compile_estimate = None  # the Numba kernel's compile, in seconds (estimate.py)
        self.trials: dict = {"first": [], "numba": []}
        self._turn = 0             # the tuning calls made so far
        self._tuning_compiles = 0  # ...and those of them the first tier compiled for
        self.winner = None
        self.settled = None        # the callable serving every call, once there is one
        self._contended = False    # whether a kernel compiled on the machine while timing
        self._retime_at = None     # when to look again whether the compiles have ended
        self._retimed = False      # (timed again once already: the choice stands)
        self._moving = threading.Lock()  # held by the thread changing the stage
        _ALL.add(self)
        self.record_key = None if self.pinned else record.key(func, origin)
        self.known = record.read(self.record_key) if self.record_key else None
        if self.known is not None and not record.decisive(self.known):
            log.info("%s: the recorded choice (%s) was %s: timing again", self.name,
                     self.known["winner"], "timed beside a compile"
                     if self.known.get("contended") else "a close call")
            self.known = None
        if self.known is not None and self.known["winner"] != "numba":
            self.stage, self.winner = "settled", self.first  # it won before: no Numba
        self.was_hot = self.known is None and self.record_key is not None and \
            record.was_hot(self.record_key)

    # ------------------------------------------------------------ calls
    def __call__(self, *args):
        settled = self.settled
        if settled is not None:
            return settled(*args)
        if self.stage == "settled":
            if self._retime_at is not None and time.monotonic() >= self._retime_at:
                self._retime_if_quiet()
                if self.stage == "tuning":
                    return self(*args)
            return self._settled_call(args)
        if self.stage == "tuning":
            with self._moving:  # (timings taken while other threads call would mislead)
                if self.stage == "tuning":
                    return self._tuning_call(args)
            return self(*args)
        start, compiled = time.perf_counter(), self._compiles
        out = self._first_call(args)
        self.calls += 1
        if self._compiles == compiled:  # (a call that compiled says nothing of run time)
            self.seconds += time.perf_counter() - start
        if self._moving.acquire(blocking=False):  # one thread moves tiers; the others run
            try:
                if self.stage == "first" and not self.pinned and self._hot():
                    self._start_numba(args)
                elif self.stage == "compiling":
                    self._poll(args, out)
            finally:
                self._moving.release()
        return out

    def _hot(self) -> bool:
        # Start on the recorded winner, or on a kernel an earlier process wanted (compiled
        # or compiling), from the second call: its loading does not delay the first result.
        if (self.known is not None or self.was_hot) and self.calls >= 2:
            return True
        return (self.calls >= HOT_CALLS or self.seconds >= HOT_SECONDS) and self._worth_it()

    def _worth_it(self) -> bool:
        """Whether the kernel's compile is short, or the function has run as long (see
        LONG_COMPILE_S); said once on the log when it waits."""
        first_asked = self._compile_estimate is None
        if first_asked:
            try:
                self._compile_estimate = estimate.numba_compile_seconds(self.func)
            except Exception:  # (a guess that failed decides nothing: compile)
                self._compile_estimate = 0.0
        worth = self._compile_estimate <= max(LONG_COMPILE_S, self.seconds)
        if first_asked and not worth:
            log.info("%s: its Numba kernel (~%.2g s to compile) waits until the function "
                     "has run as long (%.3g s so far)", self.name, self._compile_estimate,
                     self.seconds)
        return worth

    def _first_call(self, args):
        if self.first == "xla" and _FORKED:  # jaxlib's threads did not come along
            log.info("%s: a forked process runs it on numpy (XLA does not survive a fork)",
                     self.name)
            self.first, self.settled = "numpy", None
            if self.winner == "xla":
                self.winner = "numpy"
        if self.first == "numpy":
            return self._numpy_tier()(*args)
        sizes = sizes_of(self.sources, args)
        call = self._xla.get(sizes)
        fresh = call is None
        if fresh and (sizes in self._behind or sizes in self._behind_failed):
            return self._while_compiling(sizes, args)
        try:
            if fresh:
                call = self._waiting.get(sizes)
                if call is None:
                    from astjax.backends import xla
                    concrete = concretize(self.func, size_env(self.sources, sizes))
                    call = xla.compile_func(concrete, self.origin)
                    if self._light(call, concrete, sizes):
                        self._waiting[sizes] = call
                    elif self._quick_first(call, concrete):
                        self._waiting[sizes] = call
                        self._quick[sizes] = xla.compile_func(concrete, self.origin, quick=True)
                        self._compiles += 1
                if sizes in self._quick:
                    with paused():
                        out = self._quick[sizes](*args)
                    self._compile_behind(sizes)  # (after the answer: it had both cores)
                    return out
                if sizes not in self._waiting:
                    with paused():  # (it compiles at its first call)
                        self._xla[sizes] = call
                        self._compiles += 1
                        return call(*args)
            else:
                return call(*args)
        except Exception as error:
            if not fresh or getattr(error, "raised_by_host_call", False):
                raise  # (it ran before, or the user's function raised: the call's error)
            self._xla.pop(sizes, None)  # (XLA compiles at the first call)
            self._quick.pop(sizes, None)
            self._waiting.pop(sizes, None)
            self._drop("xla", error)
            self.first = "numpy"
            return self._numpy_tier()(*args)
        if sizes in self._budget:  # (its loops may run out of time: XLA must be on its way)
            self._compile_behind(sizes)
            return self._numpy_in_time(sizes, args)
        try:  # (NumPy's errors are the call's: outside the try above)
            return self._numpy_tier()(*args)
        finally:  # after the answer: started before it, the compile slowed it
            self._compile_behind(sizes)

    # ------------------------------------------------------------ XLA behind a NumPy answer
    def _light(self, call, concrete: Func, sizes) -> bool:
        """Whether NumPy should answer while XLA compiles in a thread: one NumPy call is
        estimated to cost less than XLA's compile and first call, and the executable is not
        on disk. Where a while loop's trips make the NumPy call's cost unknown, NumPy answers
        if WHILE_TRIPS trips would be quick, and gives up if XLA's compile, started beside
        it, ends first (`_numpy_in_time`)."""
        try:
            numpy_s = estimate.numpy_seconds(concrete)
            xla_s = estimate.compile_seconds(concrete) + estimate.compiled_seconds(concrete)
            budgeted = numpy_s == math.inf and not any(map(effectful, concrete.eqns))
            if budgeted:
                numpy_s = estimate.numpy_seconds(concrete, while_trips=WHILE_TRIPS)
        except Exception:  # (a rough guess that failed decides nothing: compile now)
            return False
        if self.pinned or numpy_s >= LIGHT_SHARE * xla_s or call.on_disk():
            return False
        if budgeted:
            self._budget[sizes] = xla_s
            log.info("%s: numpy answers while XLA compiles in the background, unless its "
                     "while loops outlast the compile (~%.2g s with a call; %d trips ~%.2g s "
                     "on numpy)", self.name, xla_s, WHILE_TRIPS, numpy_s)
            return True
        log.info("%s: numpy answers while XLA compiles in the background (one call ~%.2g s "
                 "on numpy, the compile and a call on XLA ~%.2g s)", self.name, numpy_s, xla_s)
        return True

    def _quick_first(self, call, concrete: Func) -> bool:
        """Whether an XLA executable compiled without LLVM's optimisation (in about a third
        of the time) should answer while the optimised one compiles in a thread: the compile
        is estimated long, the quick executable's slower call costs well under what it
        saves, and the optimised executable is not on disk."""
        try:
            compile_s = estimate.compile_seconds(concrete)
            quick_s = estimate.quick_seconds(concrete)
        except Exception:  # (a rough guess that failed decides nothing: compile now)
            return False
        if self.pinned or compile_s < QUICK_COMPILE_S or quick_s >= QUICK_SHARE * compile_s \
                or call.on_disk():
            return False
        log.info("%s: a quick XLA executable answers while the optimised one compiles in the "
                 "background (the compile ~%.2g s, one quick call ~%.2g s)", self.name,
                 compile_s, quick_s)
        return True

    def _compile_behind(self, sizes) -> None:
        """Start compiling these waiting sizes in a thread, unless another such compile runs
        in this process (one at a time: the next call of these sizes tries again)."""
        if not _BEHIND_ONE_AT_A_TIME.acquire(blocking=False):
            return
        with self._behind_lock:
            call = self._waiting.pop(sizes, None)
            if call is None:  # (another thread started it)
                _BEHIND_ONE_AT_A_TIME.release()
                return
            self._compiled[sizes] = threading.Event()
            self._behind[sizes] = thread = threading.Thread(
                target=self._compile_in_thread, args=(sizes, call),
                name=f"astjax XLA compile of {self.name}")
            thread.start()  # (not a daemon: an exit waits for the compile, tens of ms, and
            # jaxlib is not interrupted inside it; started under the lock, so `wait_behind`
            # never finds a thread not yet started)

    def _compile_in_thread(self, sizes, call) -> None:
        start = time.perf_counter()
        try:
            with paused():
                call.prepare()
        except Exception as error:  # reported by the next call, in the caller's thread
            self._behind_failed[sizes] = error
        else:
            self._xla[sizes] = call
            self._quick.pop(sizes, None)
            log.info("%s: XLA is ready (compiled in the background in %.3g s)", self.name,
                     time.perf_counter() - start)
        finally:
            self._behind.pop(sizes, None)
            ended = self._compiled.pop(sizes, None)
            if ended is not None:  # (a NumPy answer meanwhile stops: see _numpy_in_time)
                ended.set()
            _BEHIND_ONE_AT_A_TIME.release()

    def _while_compiling(self, sizes, args):
        failed = self._behind_failed.pop(sizes, None)
        if failed is not None:
            self._quick.pop(sizes, None)
            self._drop("xla", failed)
            self.first = "numpy"
        quick = self._quick.get(sizes)
        if quick is not None:
            return quick(*args)
        if sizes in self._budget and not failed:
            return self._numpy_in_time(sizes, args)
        return self._numpy_tier()(*args)

    def _numpy_in_time(self, sizes, args):
        """NumPy's answer, unless its while loops are still running when XLA's compile in the
        background ends (or, where no thread could start it, past the sizes' budget): then
        XLA's, once compiled (here, if no thread had started it)."""
        budget = self._budget.get(sizes)
        if budget is None:  # (another thread's call ran past it: XLA's, once compiled)
            self.wait_behind()
            return self._first_call(args)
        compiled = self._compiled.get(sizes)
        if compiled is None and (sizes in self._xla or sizes in self._behind_failed):
            return self._first_call(args)  # (its compile has ended already)
        try:
            with deadline(budget) if compiled is None else deadline(until=compiled):
                return self._numpy_tier()(*args)
        except OutOfTime:
            self._budget.pop(sizes, None)
        start = time.perf_counter()
        self.wait_behind()
        with self._behind_lock:
            waiting = self._waiting.pop(sizes, None)  # (another compile held the thread)
        log.info("%s: its while loops ran on numpy %s: XLA answers (%s)", self.name,
                 f"past {budget:.2g} s" if compiled is None else "until XLA was compiled",
                 "compiling it now" if waiting is not None else
                 f"waited {time.perf_counter() - start:.2g} s for its compile")
        if waiting is not None:
            with paused():
                self._xla[sizes] = waiting
                self._compiles += 1
                return waiting(*args)
        return self._first_call(args)  # (XLA's, or what a failed compile leaves: NumPy's)

    def wait_behind(self, timeout: float = None) -> None:
        """Wait for the XLA compiles this function started behind NumPy answers."""
        with self._behind_lock:
            threads = list(self._behind.values())
        for thread in threads:
            thread.join(timeout)

    # ------------------------------------------------------------ the first tiers
    def _numpy_tier(self):
        if self._numpy is None:
            from astjax.backends import numpy as reference
            call = reference.compile_func(self.func, self.origin)

            def quietly(*args):  # (XLA and Numba, the tiers it stands in for, never warn)
                with np.errstate(all="ignore"), reference.small_pages():
                    return call(*args)
            self._numpy = quietly
        return self._numpy

    def _numba_serves(self, args) -> bool:
        return self.numba is not None and self._facts_hold(args, required=True)

    def _facts_hold(self, args, required: bool = False) -> bool:
        """Whether these arguments' sizes keep every fact the Numba kernel was made with
        (`required`: those its code relies on, its choices by size class aside: made for other
        sizes, it is still right)."""
        if not self.numba_facts.items:
            return True
        by_sizes = self._required_by_sizes if required else self._facts_by_sizes
        sizes = sizes_of(self.sources, args)
        holds = by_sizes.get(sizes)
        if holds is None:
            holds = by_sizes[sizes] = _all_hold(self.numba_facts.items,
                                                size_env(self.sources, sizes), required)
        return holds

    def _settled_call(self, args):
        if self.winner == "numba" and self.numba is not None:
            if not self.numba_facts.items:
                return self.numba(*args)
            # (_facts_hold's cache asked first: this runs on every call)
            holds = self._facts_by_sizes.get(sizes_of(self.sources, args))
            if holds or (holds is None and self._facts_hold(args)):
                return self.numba(*args)
            kernel = self._other_class(args)
            if kernel is not None:
                return kernel(*args)
        if self.first == "xla" and self._xla and sizes_of(self.sources, args) not in self._xla:
            # Sizes vary: where XLA would compile again, the Numba kernel (one for every
            # length) serves at once, or is made to.
            if self._numba_serves(args):
                return self.numba(*args)
            if self.job is None and not self.pinned:
                out = self._first_call(args)
                with self._moving:
                    if self.job is None:
                        self._start_numba(args)
                return out
        return self._first_call(args)

    # ------------------------------------------------------------ other size classes
    def _other_class(self, args):
        """The kernel for sizes the first kernel was not made for: the one made for their
        size class; else, while that one compiles in the background, the first kernel where
        only its choices by size class fail (a parallel loop or not, BLAS or loops: its code
        is right for every size). None where no kernel may serve them (a size the first
        kernel holds as a value): the first tier serves them."""
        sizes = sizes_of(self.sources, args)
        known = self._class_of.get(sizes)
        if known is not None and self._class_job is None and self._class_ready is None:
            return known or None
        env = size_env(self.sources, sizes)
        kernel = next((k for facts, k in self.classes if _all_hold(facts.items, env)), None)
        if kernel is None and self._moving.acquire(blocking=False):
            try:
                kernel = self._make_class(args, sizes, env)
            finally:
                self._moving.release()
        if kernel is None and self._facts_hold(args, required=True):
            kernel = self.numba
        self._class_of[sizes] = kernel or False
        return kernel

    def _make_class(self, args, sizes, env):
        """Start, collect or check the compile of a kernel for another size class; that
        kernel once it has agreed with the first kernel (or the first tier) on a call of its
        class, else None."""
        if self._class_ready is not None:
            kernel, facts = self._class_ready
            if not _all_hold(facts.items, env):
                return None  # (it is checked on a call of its class)
            self._class_ready = None
            if self._facts_hold(args, required=True):
                expected = self.numba(*args)
            else:
                expected = self._first_call(args)
            reason = disagreement(kernel(*args), expected)
            if reason is not None:
                self._no_classes(f"its result differs: {reason}")
                return None
            self._add_class(facts, kernel)
            return kernel
        if self._class_job is not None:
            job, generated, facts = self._class_job
            outcome = job.outcome()
            if outcome is None:
                return None
            self._class_job = None
            if not outcome["ok"]:
                self._no_classes(outcome.get("error", "it did not compile"))
                return None
            from astjax.backends import numba as backend
            try:
                self._class_ready = backend.load(generated, self.func), facts
            except Exception as error:
                self._no_classes(error)
                return None
            return self._make_class(args, sizes, env)
        if self.pinned or self.no_more_classes or self.generated is None \
                or len(self.classes) + 1 >= MAX_CLASSES:
            return None
        from astjax.backends import numba as backend
        try:
            facts = Facts(items=list(self.specialised))
            generated = self._generated_for(sizes, facts)
            if generated.path == self.generated.path:  # the same code: the same kernel
                self._add_class(facts, self.numba)
                return self.numba
            job = Job(generated, backend.kernel_signature(self.func, args))
            how = job.start()
        except Exception as error:
            self._no_classes(error)
            return None
        self._class_job = job, generated, facts
        log.info("%s: sizes %s are in another size class than its Numba kernel's: %s",
                 self.name, sizes, how)
        return None

    def _generated_for(self, sizes, facts: Facts):
        """The Numba module for these sizes' class: made with them as the sizes' witnesses,
        by which the code generator chooses."""
        from astjax.backends import numba as backend
        symbols = [source[0] for source in self.sources]
        witnesses = [symbol.witness for symbol in symbols]
        try:
            for symbol, size in zip(symbols, sizes):
                symbol.witness = int(size)
            with recording(facts):
                return backend.generate(self.func, self.origin)
        finally:
            for symbol, witness in zip(symbols, witnesses):
                symbol.witness = witness

    def _add_class(self, facts: Facts, kernel) -> None:
        self.classes.append((facts, kernel))
        self._class_of.clear()
        log.info("%s: its Numba kernels now serve %d size classes", self.name,
                 len(self.classes) + 1)

    def _no_classes(self, reason) -> None:
        """No kernels for other size classes from now on, with one warning: the first kernel
        (where it may) and the first tier serve those sizes."""
        warnings.warn(f"astjax: {self.name}: no Numba kernel for another size class "
                      f"({_reason_text(reason)}); {self.first} serves those sizes",
                      stacklevel=6)
        self._class_job = self._class_ready = None
        self.no_more_classes = True

    # ------------------------------------------------------------ Numba in the background
    def _start_numba(self, args) -> None:
        from astjax.backends import numba as backend
        try:
            with recording(self.numba_facts):
                self.generated = backend.generate(self.func, self.origin)
            self.job = Job(self.generated, backend.kernel_signature(self.func, args))
            how = self.job.start()
        except Exception as error:
            self._drop("numba", error)
            return
        self.stage = "compiling"
        if self.record_key is not None and not self.was_hot:
            record.mark_hot(self.record_key)
        log.info("%s: its Numba kernel is wanted after %d calls (%.3g s): %s", self.name,
                 self.calls, self.seconds, how)

    def _poll(self, args, first_out) -> None:
        outcome = self.job.outcome()
        if outcome is None or outcome["ok"] and not self._facts_hold(args, required=True):
            return  # (the kernel is checked on a call it serves)
        if not outcome["ok"]:
            self._drop("numba", outcome.get("error", "it did not compile"))
            return
        from astjax.backends import numba as backend
        try:
            numba_call = backend.load(self.generated, self.func)
            reason = disagreement(numba_call(*args), first_out)
        except Exception as error:
            self._drop("numba", error)
            return
        if reason is not None:
            self._drop("numba", f"its result differs from {self.first}'s: {reason}")
            return
        self.numba = numba_call
        log.info("%s: its Numba kernel is ready (compiled in %.3g s)", self.name,
                 outcome.get("seconds", 0.0))
        if self.known is not None:  # the recorded winner: no timing again
            self._settle(self.known["winner"], "the recorded choice")
        else:
            self._start_tuning()

    # ------------------------------------------------------------ choosing
    def _start_tuning(self) -> None:
        self.trials = {"first": [], "numba": []}
        self._turn = self._tuning_compiles = 0
        self._contended = self._compiling_now()
        self.stage = "tuning"

    def _compiling_now(self) -> bool:
        return compiling_now(os.path.dirname(self.generated.path))

    def _retime_if_quiet(self) -> None:
        """Time the tiers again if no kernel compiles on the machine any more (see
        RETIME_POLL_S); else look again later."""
        if not self._moving.acquire(blocking=False):
            return
        try:
            if self._retime_at is None:
                return
            if self._compiling_now():
                self._retime_at = time.monotonic() + RETIME_POLL_S
                return
            self._retime_at, self._retimed = None, True
            log.info("%s: the compiles it was timed beside have ended: timing again",
                     self.name)
            self._start_tuning()
        finally:
            self._moving.release()

    def _tuning_call(self, args):
        first, numba = self.trials["first"], self.trials["numba"]
        turn, self._turn = self._turn, self._turn + 1
        use_numba = turn // RUN % 2 == 0 and self._numba_serves(args)
        start, compiled = time.perf_counter(), self._compiles
        out = _ready(self.numba(*args) if use_numba else self._first_call(args))
        if turn % RUN and self._compiles == compiled:  # (a call that compiled is not timed)
            (numba if use_numba else first).append(time.perf_counter() - start)
        elif self._compiles != compiled:
            self._tuning_compiles += 1
            if self._tuning_compiles >= TRIALS and numba:
                # sizes that vary: the first tier compiles for each, one kernel serves them all
                self._settle("numba", f"{self.first} compiled {self._tuning_compiles} sizes "
                                      f"while timing; the Numba kernel serves every size")
                record.write(self.record_key, {"winner": "numba", "numba_s": min(numba),
                                               "module": self.generated.path})
                return out
        if len(first) >= TRIALS and len(numba) >= TRIALS:
            # the fastest call of each: other work on the machine only slows calls down (a
            # parallel kernel more than a serial one), so a median taken while something else
            # runs can crown the slower tier for good
            t_first, t_numba = min(first), min(numba)
            close = max(t_first, t_numba) < record.CLOSE * min(t_first, t_numba)
            if close and len(first) < CLOSE_TRIALS:  # (more calls: the fastest gets truer)
                return out
            winner = "numba" if t_numba < t_first else self.first
            # (a compile beside slows a parallel kernel more than XLA: only Numba's loss is
            # in doubt)
            contended = winner != "numba" and (self._contended or self._compiling_now())
            why = (f"{t_numba * 1e3:.3g} ms per call on numba, {t_first * 1e3:.3g} ms on "
                   f"{self.first} (fastest of {len(first)})")
            if contended:
                why += ", beside a compile" + ("" if self._retimed else
                                               ": timed again once it ends")
            self._settle(winner, why, provisional=contended and not self._retimed)
            entry = {"winner": winner, "numba_s": t_numba, f"{self.first}_s": t_first,
                     "module": self.generated.path}
            record.write(self.record_key, {**entry, "contended": True} if contended else entry)
        return out

    def _settle(self, winner: str, why: str, provisional: bool = False) -> None:
        """Run every call on `winner` from now on (`provisional`: until the compiles the
        choice was timed beside have ended, see RETIME_POLL_S)."""
        self.stage, self.winner = "settled", winner
        if provisional:
            self._retime_at = time.monotonic() + RETIME_POLL_S
        elif winner == "numba" and not self.numba_facts.items:
            self.settled = self.numba
        elif winner == "numpy":
            self.settled = self._numpy_tier()
        elif not self.sources and self._xla:  # one size only: one XLA executable
            self.settled = self._xla[()]
        log.info("%s: running on %s (%s)", self.name, winner, why)

    def _drop(self, tier: str, reason) -> None:
        """A tier that failed or disagreed: one warning, and the others carry on."""
        reason = _reason_text(reason)
        warnings.warn(f"astjax: {self.name}: the {tier} tier is dropped ({reason}); "
                      f"{'numpy' if tier == 'xla' else self.first} runs it", stacklevel=4)
        if tier == "numba":
            self._settle(self.first, f"numba dropped: {reason}")

    # ------------------------------------------------------------ what show() says
    def report(self) -> str:
        first = self.first
        if self._behind or self._waiting:
            first = "quick (unoptimised) XLA" if self._quick else "numpy"
            first += " while XLA compiles in the background"
        later = "it stays there: effects, host calls or collectives" if self.pinned \
            else "a Numba kernel follows once it is hot"
        where = {"first": f"{first} ({later})",
                 "compiling": f"{self.first} while its Numba kernel compiles in the background",
                 "tuning": f"{self.first} and numba, timed to choose",
                 "settled": str(self.winner)}[self.stage]
        return (f"# backend auto: this signature runs on {where}; below, the NumPy "
                "reference every tier agrees with")


_BEHIND_ONE_AT_A_TIME = threading.Lock()  # held by the thread compiling XLA behind NumPy

_FORKED = False  # whether this process is a fork of one that may have started XLA


def _forked() -> None:
    global _FORKED
    _FORKED = True
    for tiered in list(_ALL):
        if tiered.first == "xla":
            tiered.settled = None  # (an XLA executable: the next call moves to numpy)


_ALL = weakref.WeakSet()  # every Tiered of this process


os.register_at_fork(after_in_child=_forked)


def pinned(func: Func) -> bool:
    """Whether the function must stay on one tier: it has effects, calls back into Python
    (no Numba kernel holds a live function), or has collectives across processes (ranks on
    different tiers would not meet in the same calls)."""
    return any(effectful(e) or e.prim in CROSS_PROCESS or e.prim in HOST_CALLS
               for e in _equations(func))


def _equations(func: Func):
    for eqn in func.eqns:
        yield eqn
        for sub in sub_funcs(eqn):
            yield from _equations(sub)


def _reason_text(reason) -> str:
    """Why a tier or a kernel was given up, for its warning: an exception as its type and the
    first line of its message."""
    if not isinstance(reason, Exception):
        return str(reason)
    return f"{type(reason).__name__}: {(str(reason).strip().splitlines() or [''])[0]}"


def _all_hold(facts, env, required: bool = False) -> bool:
    """Whether every fact holds for these sizes (`required`: every one code relies on, not
    the choices by size class)."""
    return all(f.check(env) for f in facts if not (required and f.choice))


def _ready(out):
    """`out` once computed (XLA returns buffers before it has filled them)."""
    for leaf in out if isinstance(out, tuple) else (out,):
        wait = getattr(leaf, "block_until_ready", None)
        if wait is not None:
            wait()
    return out


def disagreement(got, expected):
    """Why two tiers' results differ beyond rounding (None: they agree). Shapes and dtypes must
    be the same; floats agree within a relative 1e-6 (64-bit) or 1e-3 (narrower) of the
    larger of 1 and the result's largest magnitude; everything else exactly."""
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    if len(got) != len(expected):
        return f"{len(got)} results against {len(expected)}"
    for i, (a, b) in enumerate(zip(got, expected)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"result {i} is {a.dtype}{list(a.shape)}, not {b.dtype}{list(b.shape)}"
        if b.dtype.kind in "fc":
            tol = 1e-6 if b.dtype.itemsize >= (8 if b.dtype.kind == "f" else 16) else 1e-3
            finite = np.abs(b[np.isfinite(b)])
            scale = max(1.0, float(finite.max())) if finite.size else 1.0
            if not np.allclose(a, b, rtol=tol, atol=tol * scale, equal_nan=True):
                return f"result {i} differs by up to {float(np.nanmax(np.abs(a - b))):.3g}"
        elif not np.array_equal(a, b):
            return f"result {i} differs"
    return None
