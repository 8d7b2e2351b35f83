"""The non-symmetric eigen- and Schur decompositions for compiled code: the primitives' own
implementations (LAPACK's geev and gees through SciPy), entered through object mode (Numba's
own np.linalg.eig returns no left eigenvectors and has no Schur form)."""
import numba

from astjax.core.prims.linalg import _eig, _schur

njit = numba.njit(cache=True, error_model="numpy")


def _eig_into(a, w, vl, vr, left, right):
    outs = _eig(a, compute_left_eigenvectors=left, compute_right_eigenvectors=right)
    w[...] = outs[0]
    if left:
        vl[...] = outs[1]
    if right:
        vr[...] = outs[-1]


def _schur_into(a, t, z, vectors):
    outs = _schur(a, compute_schur_vectors=vectors)
    t[...] = outs[0]
    if vectors:
        z[...] = outs[1]


@njit
def eig_into(a, w, vl, vr, left, right):
    """w (and vl, vr where asked) = lax.linalg.eig of a; the arrays not asked for are unused."""
    with numba.objmode():
        _eig_into(a, w, vl, vr, left, right)


@njit
def schur_into(a, t, z, vectors):
    with numba.objmode():
        _schur_into(a, t, z, vectors)
