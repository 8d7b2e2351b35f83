"""Mistakes a newcomer from NumPy makes on day one, for tests/test_check.py."""
import math
import time

import numpy as np

losses = []
total = 0.0


def relu(x):
    if x > 0:
        return x
    return 0.0


def fill_loop(x):
    for i in range(len(x)):
        x[i] = x[i] ** 2
    return x


def log_loss(x):
    loss = (x * x).sum()
    print(f"loss = {loss}")
    return loss


def record_loss(x):
    loss = (x * x).sum()
    losses.append(loss)
    return loss


def python_scalar(x):
    return float(x.sum()) * 2.0


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def noisy(x):
    return x + np.random.randn(*x.shape)


def timed(x):
    t = time.time()
    return x * t


def safe_divide(x):
    try:
        return 1.0 / x
    except ZeroDivisionError:
        return x


def typo(x):
    hidden = x * 2.0
    return hiden + 1.0  # noqa: F821


def count_down(x):
    return count_down(x - 1.0)


class Layer:
    def __init__(self):
        self.last = None

    def __call__(self, x):
        self.last = x
        return x * 2.0


def batches(x):
    for row in x:
        yield row * 2.0


def integer_index(x):
    return x[int(x.argmax())]


def adds_to_global_total(x):
    global total
    total += x.sum()
    return x
