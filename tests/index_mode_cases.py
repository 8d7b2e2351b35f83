"""Out-of-range indices, read and updated (tests/test_index_modes.py)."""


def read_static(x):
    return x[10], x[-10]


def set_static(x):
    return x.at[10].set(9.0), x.at[-10].set(9.0), x.at[-1].set(9.0)


def set_dynamic(x, i):
    return x.at[i].set(9.0)


def add_dynamic(x, i):
    return x.at[i].add(9.0)


def set_dynamic_2d(m, i, j):
    return m.at[i, j].set(9.0), m.at[i].multiply(2.0)


def set_clipped(x, i):
    return x.at[i].set(9.0, mode="clip")


def read_dynamic(x, i):
    return x[i]


def read_or_fill(x, i):
    return x.at[i].get(mode="fill", fill_value=-1.0)


def set_array(x, idx):
    return x.at[idx].set(9.0), x.at[idx].add(1.0), x.at[idx].set(9.0, mode="clip")


def combine_array_2d(m, idx):
    return m.at[:, idx].max(5.5), m.at[idx, 1:].multiply(2.0), m.at[idx, idx].min(-1.0)


def set_static_array(x):
    import numpy as np
    return x.at[np.array([0, 5, -1, -7])].add(1.0)


def read_array_or_fill(m, idx):
    """Index arrays read the fill value where out of range: along the first axis, along the
    second, beside an int index, and two arrays at once; NaN is the float default."""
    return (m.at[idx].get(mode="fill", fill_value=-1.0), m.at[:, idx].get(mode="fill", fill_value=-2.0),
            m.at[1, idx].get(mode="fill", fill_value=-3.0),
            m.at[idx[:2], idx[-2:]].get(mode="fill", fill_value=-4.0), m.at[idx].get(mode="fill"))
