"""One mistake per function, for tests/test_check.py (which finds each offending node by its
text, so lines may move)."""
import logging
import math
import os
import random
import sys
import time

import numpy as np

import astjax.numpy as jnp  # noqa: F401  (JAX code: assigning an argument's items is refused)

COUNTER = 0
CACHE = {}
HISTORY = []


class Settings:
    scale = 1.0


SETTINGS = Settings()


# ------------------------------------------------------------------ state outside the function
def assigns_global(x):
    global COUNTER
    COUNTER = COUNTER + 1
    return x


def _make_counter():
    count = 0

    def step(x):
        nonlocal count
        count += 1
        return x * count
    return step


counts_calls = _make_counter()


class Model:
    def __init__(self):
        self.calls = 0

    def apply(self, x):
        self.calls = self.calls + 1
        return x * 2.0


def adds_to_attribute(x):
    SETTINGS.scale += 1.0
    return x * SETTINGS.scale


def sets_argument_item(x):
    x[0] = 1.0
    return x


def adds_to_argument_items(x):
    x[1:] += 2.0
    return x


def sets_argument_item_in_loop(x):
    for i in range(3):
        x[i] = x[i] * 2.0
    return x


def sets_item_after_conditional_copy(x, copy):
    if copy:
        x = x * 1.0
    x[0] = 1.0
    return x


def sets_global_item(x):
    CACHE["last"] = x
    return x


def sets_aliased_local_item(x):
    y = x * 1.0
    z = y
    y[0] = 0.0
    return y + z


def sets_item_of_renamed_argument(x):
    y = x
    y[0] = 0.0
    return y


def appends_to_global(x):
    HISTORY.append(x)
    return x * 2.0


def sorts_argument(x):
    x.sort()
    return x


def appends_to_closure(x):
    seen = []

    def remember(v):
        seen.append(v)
        return v
    return remember(x)


def pops_renamed_argument(xs):
    ys = xs
    last = ys.pop()
    return last


# ------------------------------------------------------------------ I/O
def prints(x):
    y = x * 2.0
    print(y)
    return y


def reads_file(x):
    scale = float(open("scale.txt").read())
    return x * scale


def asks(x):
    n = float(input("n? "))
    return x * n


def calls_eval(x):
    return eval("x + 1.0")


def times_itself(x):
    start = time.perf_counter()
    return x * start


def logs(x):
    logging.info("x is %s", x)
    return x


def reads_environment(x):
    return x * float(os.environ.get("SCALE", "1"))


def writes_stderr(x):
    sys.stderr.write("running\n")
    return x


def python_random(x):
    return x * random.random()


def numpy_random(x):
    return x + np.random.normal(size=x.shape)


# ------------------------------------------------------------------ unsupported syntax
def catches(x):
    try:
        y = x / 2.0
    except ZeroDivisionError:
        y = x
    return y


def generates(x):
    yield x * 2.0


def delegates(x):
    yield from [x, x]


async def coroutine(x):
    return x * 2.0


def defines_class(x):
    class Box:
        value = 1.0
    return x * Box.value


def deletes_item(x):
    d = {"a": x, "b": x * 2.0}
    del d["a"]
    return d["b"]


def matches(x):
    match x.ndim:
        case 1:
            return x
        case _:
            return x * 2.0


# ------------------------------------------------------------------ names
def misspells(x):
    factor = 2.0
    return x * facotr  # noqa: F821


misspelled_lambda = lambda x: x * factr  # noqa: E731, F821


def reads_later_undefined(x):
    y = x * 2.0
    return y + undefined_helper(y)  # noqa: F821


# ------------------------------------------------------------------ found at specialisation
def recurses(x):
    return recurses(x - 1.0)


def calls_math(x):
    return math.sin(x) * 2.0


def converts_to_float(x):
    return float(x) * 2.0
