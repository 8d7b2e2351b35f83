"""Run by test_frontend_cache.py in new processes: `python frontend_cache_program.py A B`.

Prints one JSON line: each function's result and how many times the front end ran."""
import json
import sys

import numpy as np

import astjax
import astjax.compiled
import astjax.numpy as jnp
import frontend_cache_helper as helper

RUNS = []
_specialize = astjax.compiled.specialize


def counting(fun, *args, **kwargs):
    RUNS.append(getattr(fun, "__name__", type(fun).__name__))
    return _specialize(fun, *args, **kwargs)


astjax.compiled.specialize = counting

helper.SCALE = float(sys.argv[1])  # a module attribute set at run time
OFFSET = float(sys.argv[2])        # a global computed at run time
WEIGHTS = np.arange(int(float(sys.argv[1])) + 1.0)  # an array whose size is chosen at run time


class Config:
    def __init__(self, power):
        self.power = power


CONFIG = Config(float(sys.argv[1]))


class Scales:
    FACTOR = 1.0


Scales.FACTOR = float(sys.argv[2])  # a class attribute set at run time


def body_constant(x):
    return jnp.sum(x * 2.0)


def reads_module_attribute(x):
    return jnp.sum(x) * helper.SCALE


def reads_global(x):
    return jnp.sum(x) + OFFSET


def make_closure(k):
    def closure(x):
        return jnp.sum(x ** 2) * k
    return closure


def reads_object(x):
    return jnp.sum(x) ** CONFIG.power


def calls_helper(x):
    return helper.shifted(x) + 1.0


def reads_class_attribute(x):
    return jnp.sum(x) * Scales.FACTOR


def reads_array(x):
    return jnp.sum(WEIGHTS) * jnp.sum(x)


def loss(w):
    return jnp.sum(jnp.tanh(w) ** 2)


x = np.linspace(0.5, 1.5, 4)
results = {
    "body_constant": astjax.jit(body_constant)(x),
    "reads_module_attribute": astjax.jit(reads_module_attribute)(x),
    "reads_global": astjax.jit(reads_global)(x),
    "closure": astjax.jit(make_closure(float(sys.argv[2])))(x),
    "reads_object": astjax.jit(reads_object)(x),
    "calls_helper": astjax.jit(calls_helper)(x),
    "grad": astjax.jit(astjax.grad(loss))(x),
    "reads_array": astjax.jit(reads_array)(x),
    "reads_class_attribute": astjax.jit(reads_class_attribute)(x),
}
print(json.dumps({"results": {k: np.asarray(v, np.float64).tolist() for k, v in results.items()},
                  "frontend": sorted(RUNS)}))
