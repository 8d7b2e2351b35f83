"""A module with a star import: the fence cannot know every module-level name."""
from math import *  # noqa: F401,F403


def uses_star_name(x):
    return x * pi  # noqa: F405


def uses_unknown_name(x):
    return x * not_in_math  # noqa: F821
