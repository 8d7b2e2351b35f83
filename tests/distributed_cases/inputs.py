"""The programs run across processes, with arguments whose mapped axis has 4 examples (an
equal share for 1, 2 or 4 processes)."""
import numpy as np

import astjax
from distributed_cases import programs as here
from pmap_cases import programs

X4 = np.array([[0.5, -1.0], [2.0, 0.25], [-1.5, 1.0], [0.75, -0.3]])
Y4 = np.array([[0.5, -1.0, 0.3], [2.0, 0.25, -0.7], [0.1, 0.2, 0.3], [-1.2, 0.4, 0.9]])
W = np.array([0.3, -0.8, 1.1])

CASES = {  # name -> (function, arguments, in_axes)
    "collectives": (lambda: programs.collectives, lambda: (X4,), 0),
    "grad_coupled": (lambda: astjax.grad(programs.coupled_loss), lambda: (X4,), 0),
    "grad_gathered": (lambda: astjax.grad(programs.gathered_loss), lambda: (Y4,), 0),
    "branch_negative": (lambda: programs.with_branch, lambda: (-X4,), 0),
    "nested_vmap": (lambda: programs.nested, lambda: (np.arange(24.0).reshape(4, 3, 2),), 0),
    "grad_while": (lambda: astjax.grad(programs.looped), lambda: (X4 / 4,), 0),
    "grouped": (lambda: programs.grouped, lambda: (X4,), 0),
    "grad_grouped": (lambda: astjax.grad(programs.grouped_loss), lambda: (X4,), 0),
    "while_on_psum": (lambda: here.grow_until_large, lambda: (X4 / 10,), 0),
    "grad_extremum": (lambda: astjax.grad(here.extremum_loss), lambda: (X4,), 0),
    "grad_mean_loss": (lambda: here.grad_mean_loss, lambda: (W, Y4), (None, 0)),
}
