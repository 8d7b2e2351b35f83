"""The pmap test programs with their arguments (a mapped axis of 3 or 4 examples)."""
import numpy as np

import astjax
from pmap_cases import programs

X3 = np.array([[0.5, -1.0], [2.0, 0.25], [-1.5, 1.0]])
X2 = np.array([[0.5, -1.0, 0.3], [2.0, 0.25, -0.7]])
X4 = np.array([[0.5, -1.0], [2.0, 0.25], [-1.5, 1.0], [0.75, -0.3]])

INPUTS = {  # name -> (function, arguments)
    "collectives": (lambda: programs.collectives, lambda: (X3,)),
    "grad_coupled": (lambda: astjax.grad(programs.coupled_loss), lambda: (X3,)),
    "grad_gathered": (lambda: astjax.grad(programs.gathered_loss), lambda: (X2,)),
    "branch_positive": (lambda: programs.with_branch, lambda: (X3,)),
    "branch_negative": (lambda: programs.with_branch, lambda: (-X3,)),
    "grad_while": (lambda: astjax.grad(programs.looped), lambda: (X3 / 4,)),
    "nested_pmap": (lambda: programs.nested_pmap, lambda: (np.arange(8.0).reshape(2, 2, 2),)),
    "grouped": (lambda: programs.grouped, lambda: (X4,)),
    "grad_grouped": (lambda: astjax.grad(programs.grouped_loss), lambda: (X4,)),
    "nested_vmap": (lambda: programs.nested, lambda: (np.arange(24.0).reshape(4, 3, 2),)),
}
