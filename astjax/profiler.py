"""jax.profiler's names, so that a program instrumented for JAX's profiler runs: the traces
and annotations mark nothing (astjax's own timings are on the `astjax` logger and in
`astjax.show(f)`), and a device memory profile is an empty file."""
import contextlib
import functools


@contextlib.contextmanager
def trace(log_dir=None, create_perfetto_link=False, create_perfetto_trace=False):
    yield


def start_trace(log_dir=None, create_perfetto_link=False, create_perfetto_trace=False) -> None:
    return None


def stop_trace() -> None:
    return None


class TraceAnnotation(contextlib.ContextDecorator):
    def __init__(self, name: str = "", **kwargs):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class StepTraceAnnotation(TraceAnnotation):
    def __init__(self, name: str = "", **kwargs):
        super().__init__(name)


def annotate_function(func=None, name=None, **kwargs):
    if func is None:
        return functools.partial(annotate_function, name=name, **kwargs)
    return func


def save_device_memory_profile(filename, backend=None) -> None:
    with open(filename, "wb"):
        pass


def start_server(port: int):
    return None


__all__ = ["StepTraceAnnotation", "TraceAnnotation", "annotate_function",
           "save_device_memory_profile", "start_server", "start_trace", "stop_trace", "trace"]
