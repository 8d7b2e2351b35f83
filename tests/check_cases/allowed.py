"""Patterns the fence must let through, for tests/test_check.py."""
import numpy as np

SCALE = 2.0


def appends_to_local_list(x):
    parts = []
    parts.append(x)
    parts.append(x * 2.0)
    return parts[0] + parts[1]


def updates_local_dict(x):
    d = {}
    d["a"] = x
    d.update(b=x * 2.0)
    return d["a"] + d["b"]


def sets_item_of_local_copy(x):
    x = x * 1.0
    x[0] = 1.0
    return x


def adds_to_items_of_local_copy(x):
    y = x + 0.0
    y[1:] += 2.0
    return y


def rebinds_argument(x):
    x = x + 1.0
    x += 1.0
    return x


def nested_def_and_lambda(x):
    def double(v):
        return v * 2.0
    halve = lambda v: v / 2.0  # noqa: E731
    return halve(double(x))


def comprehension(x):
    parts = [x * i for i in range(3)]
    return parts[0] + parts[1] + parts[2]


def reads_global(x):
    return x * SCALE


def uses_the_sorted_copy(x):
    return x.sort() * 2.0


def functional_update(x):
    return x.at[0].set(1.0)


def calls_module_function_named_like_a_method(x):
    return np.add(x, 1.0)


def docstring_assert_pass(x):
    """A docstring."""
    assert SCALE > 0, "positive"
    pass
    return x - 1.0


def uses_module_dunder(x):
    name = __name__
    return x * float(len(name) > 0)


def annotated(x: "NotDefinedAnywhere") -> "AlsoNot":  # noqa: F821
    y: float = 2.0
    return x * y


def branches_on_array(x):
    if (x > 0.0).all():
        y = x * 2.0
    else:
        y = x - 1.0
    return y


allowed_lambda = lambda x: x * SCALE  # noqa: E731


def uses_with(x):
    """A with-block runs at compile time, its manager entered around the body."""
    with np.errstate(divide="ignore"):
        y = 1.0 / x
    return y
