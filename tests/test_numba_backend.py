"""The Numba backend against the NumPy backend (the oracle): same dtype, shape and values.

Compilation dominates the cost, so every function is compiled once per module (the
`compiled` fixture) and arguments are fixed (a new shape would be a new specialisation).
Corpus arguments are hypothesis' simplest example with varied values, found deterministically.
"""
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, find, settings

import astjax
import astjax.numpy as jnp
import numba_cases
from astjax.errors import TransformError
from corpus import by_name
from generated_source import with_pranges

# A representative slice of the shared corpus (all of it passes, but compiling all of it twice
# over would take minutes): (case name, dtype).
CORPUS = [("gelu_tanh", np.float32), ("softplus_stable", np.float64),
          ("trig_broadcast", np.float32), ("pow_and_logs", np.float64), ("clipped", np.float32),
          ("softmax", np.float32), ("layer_norm", np.float64), ("moments", np.float32),
          ("argmax_onehot", np.float64), ("all_any_counts", np.float32),
          ("running_mean", np.float64), ("affine", np.float32), ("bilinear", np.float64),
          ("batched_matmul", np.float32), ("mlp", np.float32), ("cross_entropy", np.float64),
          ("attention", np.float32), ("sign_branch", np.float64), ("three_way", np.float32),
          ("newton_sqrt", np.float64), ("halve_until_small", np.float32),
          ("scan_rows", np.float64), ("lax_switch", np.float32),
          ("lax_scan_cumulative", np.float64), ("lax_fori", np.float32),
          ("slicing", np.float64), ("gather", np.float32), ("at_updates", np.float64),
          ("at_dynamic_index", np.float32), ("pair_ops", np.float64)]

OWN = {**numba_cases.cases(), **numba_cases.fusion_cases()}


def _varied(args) -> bool:
    """Float arrays with at least two distinct values (hypothesis' minimum is all zeros)."""
    arrays = [np.asarray(a) for a in astjax.tree_util.tree_leaves(args)
              if np.asarray(a).dtype.kind == "f" and np.asarray(a).size > 1]
    return all(len(np.unique(a)) > 1 for a in arrays)


def corpus_args(case, dtype):
    quiet = settings(database=None, max_examples=500, derandomize=True,
                     suppress_health_check=list(HealthCheck))
    return find(case.args(dtype), _varied, settings=quiet)


@pytest.fixture(scope="module")
def compiled():
    """name -> (numba result, numpy result, the numba JitFunction); each compiled once."""
    results = {}

    def get_result(name):
        if name not in results:
            if name in OWN:
                jitted, args = OWN[name]
                fun, static = jitted.fun, jitted.static_argnums
            else:
                case = by_name(name.split(":")[0])
                fun, static = case.fun, case.static_argnums
                args = corpus_args(case, np.dtype(name.split(":")[1]).type)
            numba_fn = astjax.jit(fun, static_argnums=static, backend="numba")
            expected = astjax.jit(fun, static_argnums=static)(*args)
            results[name] = (numba_fn(*args), expected, numba_fn)
        return results[name]
    return get_result


def assert_same(got, expected, fn):
    """Same structure, shapes and values; dtypes those of the core form's avals.  (They are the
    NumPy backend's too, except where that backend widens a weak float array to float64:
    NumPy has no weak arrays.)"""
    got_leaves = astjax.tree_util.tree_leaves(got)
    want_leaves = astjax.tree_util.tree_leaves(expected)
    avals = fn.last.spec.func.out_avals
    assert len(got_leaves) == len(want_leaves)
    for k, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape
        assert g.dtype == w.dtype or (len(avals) == len(got_leaves) and g.dtype == avals[k].dtype)
        # a few ulps per transcendental call, compounded along a chain of them
        rtol = 1e-5 if np.float32 in (g.dtype, w.dtype) else 1e-12
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", [f"{n}:{np.dtype(d).name}" for n, d in CORPUS])
def test_corpus_matches_numpy_backend(compiled, name):
    got, expected, fn = compiled(name)
    assert_same(got, expected, fn)


@pytest.mark.parametrize("name", sorted(OWN))
def test_matches_numpy_backend(compiled, name):
    got, expected, fn = compiled(name)
    assert_same(got, expected, fn)


@pytest.mark.parametrize("name", ["chain_f32", "chain_f32_parallel"])
def test_fused_chain_vectorises_without_libm(compiled, name):
    """One loop over blocks, in two stages (tanh, exp and sin, then log1p: see stages.py),
    vecmath inlined: vector float types in the IR and no scalar libm calls."""
    *_, fn = compiled(name)
    source = fn.source
    assert len(re.findall(r"for block\w* in ", source)) == 1 and "vecmath.tanh(" in source
    stages = [m.start() for m in re.finditer(r"for i\w* in range\(lo\w*, hi\w*\):", source)]
    assert len(stages) == 2, source
    assert source.index("vecmath.sin(") < stages[1] < source.index("vecmath.log1p(")
    ir = _llvm_ir(fn)
    assert re.search(r"<(4|8|16) x float>", ir)
    assert not re.search(r"@(tanhf|expf|sinf|log1pf|sqrtf|tanh|exp|sin|log1p)\(", ir)


def _llvm_ir(fn) -> str:
    """The LLVM IR of a jitted function's kernel."""
    kernel = fn.last.call.kernel
    ir = "\n".join(kernel.inspect_llvm().values())
    if "define" not in ir:  # loaded from Numba's disk cache, which keeps no IR: compile afresh
        kernel.recompile()
        ir = "\n".join(kernel.inspect_llvm().values())
    return ir


def test_a_hessian_fuses_into_two_nests(compiled):
    """jacfwd's one-hot basis is read where it is used (never stored), nests over the same
    domain that one equation reads merge, and the transposed result is stored in its own
    order: two loop nests, where a nest per shape change made seven."""
    *_, fn = compiled("hessian_rosenbrock")
    source = fn.source
    assert len(re.findall(r"^    for ", source, re.M)) == 2, source
    assert source.count("rt.empty(") == 3, source
    assert ".reshape(" not in source, source


def test_guarded_reads_leave_the_interior_of_their_loop_unguarded(compiled):
    """A stencil's loop is cut in three: its first and last positions keep the guards of
    their padded reads, the interior (run in blocks on threads) reads without them, and the
    interior loop vectorises."""
    *_, fn = compiled("smoothed_parallel")
    source = with_pranges(fn.source)
    interior = source.split("numba.prange(")[1].split("\n    for ")[0]
    assert " if " not in interior and "x[i - 1]" in interior, source
    assert source.count(" if 0 <= ") == 4, source  # (two reads, in each of the two edges)
    ir = _llvm_ir(fn)
    assert re.search(r"<(4|8|16) x float>", ir)


def test_a_small_last_axis_is_pinned_and_other_sizes_get_their_own_kernel():
    """A matrix of 3-D points: the size 3, seen only as the last axis, is written as its
    value (its loops unroll and the loop over bodies vectorises), the number of bodies is
    read from the argument; a call with 2-D points or other counts still gives NumPy's."""
    fn = astjax.jit(astjax.grad(numba_cases.nbody_energy), backend="numba")
    rng = np.random.default_rng(3)
    fn(rng.standard_normal((30, 3)), rng.random(30) + 0.5)
    source = fn.source
    assert re.search(r"^    pos_dim1 = 3$", source, re.M), source
    assert re.search(r"^    pos_dim0 = pos\.shape\[0\]$", source, re.M), source
    reference = astjax.jit(astjax.grad(numba_cases.nbody_energy), backend="numpy")
    for shape in ((40, 2), (11, 3), (6, 7)):
        pos, mass = rng.standard_normal(shape), rng.random(shape[0]) + 0.5
        np.testing.assert_allclose(fn(pos, mass), reference(pos, mass), rtol=1e-9, atol=1e-12)
    assert "pos_dim1 = pos.shape[1]" in fn.source  # (the last call's: 7 is past PINNED_AXIS)


def _little_math(x):
    return jnp.exp(-x) * jnp.log1p(x * x)


def test_only_a_loop_of_much_math_runs_in_stages(compiled):
    """A 2-D nest and a loop of little math stay one loop; the staged loop hands its values
    on in block-sized buffers."""
    *_, two_d = compiled("chain_f64_2d")
    assert "for block" not in two_d.source
    little = astjax.jit(_little_math, backend="numba")
    x = np.linspace(-2.0, 2.0, 5000)
    np.testing.assert_allclose(little(x), np.exp(-x) * np.log1p(x * x), rtol=1e-13)
    assert "for block" not in little.source
    *_, staged = compiled("staged_math_f64")
    assert len(re.findall(r"_block = rt.empty\(\(4096,\)", staged.source)) >= 2, staged.source


def test_fused_chain_reads_like_the_source(compiled):
    *_, fn = compiled("chain_f32")
    source = fn.source
    assert "y_i = " in source and "np.float32(0.5) * " in source
    assert re.search(r"# numba_cases.py:\d+  y = jnp.tanh\(x\)", source)
    assert "parallel=True" not in source  # 1000 elements: a plain range loop
    *_, big = compiled("chain_f32_parallel")
    assert "rt.parallel(" in big.source and "parallel=True" not in big.source  # (no parfors)
    assert "numba.prange(" in with_pranges(big.source)


def _shift_relu(x, b):
    return jnp.maximum(x + b, 0.0)


def _shift_tanh(x, b):
    return jnp.tanh(x + b)


def test_a_memory_bound_nest_goes_parallel_only_when_large():
    """Arithmetic alone over 131072 elements stays one thread (a second gains little on a
    memory-bound loop and a parallel loop costs about a second of compile); transcendental
    work of that size, or arithmetic over 4x as many elements, runs in parallel."""
    b = np.zeros(512, np.float32)
    small, large = np.ones((256, 512), np.float32), np.ones((1024, 512), np.float32)
    assert "parallel" not in astjax.make_source(_shift_relu, small, b, backend="numba")
    assert "rt.parallel(" in astjax.make_source(_shift_tanh, small, b, backend="numba")
    assert "rt.parallel(" in astjax.make_source(_shift_relu, large, b, backend="numba")


def _top_level_loops(source: str) -> list:
    """The loop statements directly in the generated function's body."""
    return [line for line in source.splitlines() if re.match(r"    for \w+ in ", line)]


def _loop_body(source: str, header: str) -> list:
    """The lines of the loop whose header line contains `header` (by indentation)."""
    lines = source.splitlines()
    start = next(k for k, line in enumerate(lines) if header in line and "for " in line)
    depth = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= depth:
            break
        body.append(line)
    return body


@pytest.mark.parametrize("name", ["row_softmax", "row_logsumexp", "row_layer_norm",
                                  "row_rms_norm", "row_cross_entropy"])
def test_row_normalisation_is_one_loop_nest_over_rows(compiled, name):
    """Reductions fused with their producers and consumers: one loop over the rows, the
    passes over a row inside it, nothing stored between them."""
    *_, fn = compiled(name)
    source = fn.source
    loops = _top_level_loops(source)
    assert len(loops) == 1, source
    passes = [line for line in _loop_body(source, loops[0].strip())
              if re.match(r"        for \w+ in ", line)]
    assert 1 <= len(passes) <= 3, source
    body = "\n".join(_loop_body(source, loops[0].strip()))
    assert "np.empty" not in body and "rt.empty" not in body, body


def test_matrix_vector_product_joins_the_pass_that_rereads_its_matrix(compiled):
    """Per-example gradients: x @ w and the outer product that reads x again become one
    parallel loop over x's rows, x read in memory order, no BLAS call."""
    *_, fn = compiled("per_example_grads")
    source = with_pranges(fn.source)
    assert not _calls_blas(source), source
    loops = _top_level_loops(source)
    assert len(loops) == 1 and "numba.prange" in loops[0], source


@pytest.mark.parametrize("name", ["dense_tanh_vector", "train_linear_fori", "vector_matrix"])
def test_matrix_vector_product_stays_blas_where_a_pass_gains_nothing(compiled, name):
    """A matrix nothing else reads (tanh(x @ w)), rows too short for the per-row work
    (40 wide), or a sum down the matrix's columns (v @ a): BLAS."""
    *_, fn = compiled(name)
    assert _calls_blas(fn.source), fn.source


def test_a_nest_accumulating_per_first_loop_index_runs_in_parallel(compiled):
    """The pair gradient adds, for each i, pair (i, j) terms over j into slots of row i: the
    loop over i is parallel (its accumulator's slots are apart). The sum over i into slots of
    j runs in parallel too, each block of i adding into partial sums of its own."""
    *_, fn = compiled("grad_nbody_parallel")
    source = with_pranges(fn.source)
    loops = [line.strip() for line in source.splitlines() if line.startswith("    for ")]
    assert loops[0].startswith("for i in numba.prange("), source
    assert "for chunk in numba.prange(8):" in loops, source


def test_a_sum_down_columns_runs_in_blocks_with_partial_sums(compiled):
    """A sum along the first loop (a bias's gradient): CHUNKS blocks of rows in parallel,
    each into its own row of partial sums, added after the loop."""
    *_, fn = compiled("column_sums")
    source = with_pranges(fn.source)
    assert "for chunk in numba.prange(8):" in source, source
    assert re.search(r"_acc\[chunk, j\w*\] = rt\.radd\(", source), source
    assert "for c in range(1, 8):" in source and ".sum(axis=0)" not in source, source


def test_partial_sums_over_two_kept_axes_are_combined_and_reshaped(compiled):
    *_, fn = compiled("slab_sums")
    source = with_pranges(fn.source)
    assert "for chunk in numba.prange(8):" in source, source
    assert re.search(r"_acc_flat = \w+_acc\.reshape\(\(8, ", source), source


def test_a_batched_while_loops_test_stops_at_its_first_running_lane(compiled):
    """The loop's test (any lane running) is a serial nest over the flags that breaks at the
    first set one."""
    *_, fn = compiled("vmap_while_f32")
    assert re.search(r"if reduce_or\w*:\n\s+break", fn.source), fn.source


@pytest.mark.parametrize("name", ["vmap_while_blocks", "vmap_while_vector_state"])
def test_a_batched_while_loop_runs_to_the_end_on_one_block_of_lanes_at_a_time(compiled, name):
    """vmap of a while loop: a parallel loop over blocks of lanes holds the whole while loop,
    whose nests over the block's rows are serial (no prange inside)."""
    *_, fn = compiled(name)
    source = with_pranges(fn.source)
    head = re.search(r"\n( *)for block\w* in numba\.prange\(-\(-\w+ // 4096\)\):", source)
    assert head, source
    inside = _loop_body(source, head.group(0).strip())
    assert any(line.strip().startswith("while True:") for line in inside), source
    assert not any("prange" in line for line in inside), source


def test_a_hand_written_masked_loop_whose_flags_start_apart_runs_over_all_lanes(compiled):
    """Its lanes' flags are not its test on its carries at the start: blocks would stop early
    (the result is checked by test_matches_numpy_backend[lanewise_while_blocks])."""
    *_, fn = compiled("lanewise_while_blocks")
    assert "4096" not in fn.source, fn.source


def test_products_over_leading_axes_read_their_operands_transposed(compiled):
    """A product summing over an operand's leading axes (in memory order) hands BLAS the
    operand reshaped, flagged to be read transposed: no transposed copy is made."""
    *_, fn = compiled("stacked_products")
    assert "ascontiguousarray" not in fn.source, fn.source
    assert re.search(r"rt\.(batched_)?dot\(.*np\.bool_\(True\)", fn.source), fn.source


def _calls_blas(source: str) -> bool:
    code = "\n".join(line.split("#")[0] for line in source.splitlines())
    return re.search(r"(?<![\w.])np\.dot\(|rt\.(batched_)?dot\(", code) is not None


def test_small_state_loop_allocates_nothing(compiled):
    """A loop over a 2-element state keeps it in scalar locals: its body (forward steps and
    the reverse sweep) allocates nothing."""
    *_, fn = compiled("grad_pendulum")
    source = fn.source
    loops = [line for line in source.splitlines() if re.match(r"    for t\w* in ", line)]
    assert len(loops) == 2, source  # the forward loop and its reverse sweep
    for loop in loops:
        body = "\n".join(_loop_body(source, loop.strip()))
        for allocation in ("np.empty", "np.full", "np.zeros", "rt.empty", "rt.full", "rt.zeros",
                           "np.concatenate", ".copy()"):
            assert allocation not in body, (allocation, body)


def test_debug_print_runs_in_compiled_code(capsys):
    fn = astjax.jit(numba_cases.printing, backend="numba")
    out = fn(np.arange(4.0))
    assert capsys.readouterr().out == "sum=6.0\n"
    np.testing.assert_array_equal(out, np.arange(4.0) + 1)


def test_every_primitive_has_a_lowering():
    import astjax.backends.numba
    assert astjax.backends.numba.missing() == []


def test_primitive_without_lowering_is_refused(monkeypatch):
    from astjax.backends.numba.emit import LOWER
    monkeypatch.delitem(LOWER._rules, "sort")

    def sorts(x):
        return jnp.sort(x) * 2

    with pytest.raises(TransformError, match=r"lax\.sort[\s\S]*backend=\"numpy\""):
        astjax.jit(sorts, backend="numba")(np.arange(3.0))


def test_a_numba_compile_failure_is_an_astjax_error():
    """Numba compiles at the first call; a failure there names the function, not Numba's
    internals (a deliberately broken kernel stands in for an unforeseen lowering bug)."""
    import numba
    from astjax.backends import numba as numba_backend
    from astjax.core.avals import AVal
    from astjax.core.ir import Func, Var
    from astjax.errors import TransformError

    @numba.njit
    def broken(x):
        return x.no_such_method()

    x = Var(AVal((2,), np.dtype("float64")), "x")
    call = numba_backend._entry(broken, Func("broken", [x], [], [x]), __file__)  # (its lock)
    with pytest.raises(TransformError, match="could not compile broken"):
        call(np.ones(2))


def test_cached_machine_code_is_keyed_by_the_runtime_it_inlines(monkeypatch):
    """Numba's on-disk cache knows only the generated file: the file's name must change when
    vecmath or the runtime does, or a process would run machine code built from old ones."""
    import os
    from astjax.backends import numba as numba_backend, numba_runtime_files
    names = {os.path.relpath(p, os.path.dirname(os.path.dirname(p)))
             for p in numba_runtime_files()}
    assert {"vecmath/__init__.py", "vecmath/explog.py", "vecmath/trig.py", "vecmath/special.py",
            "vecmath/variants.py", "vecmath/ir.py", "numba/runtime.py"} <= names
    before = numba_backend._digest("def f(x):\n    return x\n", {})
    monkeypatch.setattr(numba_backend, "RUNTIME_FINGERPRINT", "another vecmath")
    assert numba_backend._digest("def f(x):\n    return x\n", {}) != before


def test_polygamma_runtime_against_mpmath():
    """rt.polygamma (the Numba lowering of lax.polygamma) to 1e-13 of mpmath, on the negative
    axis of the larger of the result and the reflection term psi^(m)(1 - x) (the reflection
    cancels next to each zero); special values as SciPy gives them."""
    import mpmath as mp
    import scipy.special as sp
    from astjax.backends.numba import runtime as rt
    rng = np.random.default_rng(0)
    for m in (1, 2, 3, 4, 7):
        for x in np.concatenate([rng.uniform(-10, 10, 60), rng.uniform(0, 1e-3, 5), [1e6 + 0.5]]):
            ref = mp.polygamma(m, mp.mpf(float(x)))
            scale = max(abs(ref), abs(mp.polygamma(m, 1 - mp.mpf(float(x)))) if x < 0 else 0)
            assert abs(rt.polygamma(float(m), float(x)) - ref) <= 1e-13 * scale, (m, x)
    specials = np.array([0.0, -0.0, -1.0, -3.0, np.inf, -np.inf, np.nan])
    for m in (0.0, 1.0, 2.0, 1.5, -1.0):
        got = np.array([rt.polygamma(m, x) for x in specials])
        with np.errstate(all="ignore"):
            want = sp.polygamma(m, specials)
        if m == 0.0:  # digamma's poles: vecmath follows scipy.special.digamma
            want = sp.digamma(specials)
        assert np.array_equal(got, want, equal_nan=True), (m, got, want)


def _reshape_cases():
    """(out shape, base shape) pairs with the same number of elements: splits, merges, size-1
    dims on either side, and shapes that share no run of dims."""
    rng = np.random.default_rng(3)
    cases = [((64, 63), (64, 1, 63)), ((64, 1, 63), (64, 63)), ((4, 6), (2, 12)),
             ((4, 6), (24,)), ((24,), (2, 3, 4)), ((2, 3, 4), (6, 4)), ((1, 5), (5, 1)),
             ((), (1, 1)), ((1, 1), ())]
    for _ in range(40):
        factors = [int(f) for f in rng.choice([1, 2, 3, 4, 5], size=rng.integers(1, 5))]
        cut = rng.permutation(factors)
        out = [int(np.prod(part)) for part in np.array_split(factors, rng.integers(1, 4))]
        base = [int(np.prod(part)) for part in np.array_split(cut, rng.integers(1, 4))]
        cases.append((tuple(out), tuple(base)))
    return cases


@pytest.mark.parametrize("out, base", _reshape_cases())
def test_reshape_index_maps_agree_with_numpy(out, base):
    """Every index of the reshaped array reads the base element NumPy's reshape puts there;
    a dim the reshape keeps is read with no division."""
    from astjax.backends.numba import values as V
    names = [f"i{k}" for k in range(len(out))]
    exprs = V.reshape_index(names, out, base)
    positions = np.arange(int(np.prod(out))).reshape(out)
    for index in np.ndindex(*out):
        env = dict(zip(names, index))
        got = tuple(eval(str(e), {}, env) if not isinstance(e, int) else e for e in exprs)
        assert positions.reshape(base)[got] == positions[index]
    if out == (64, 63):
        assert exprs == ["i0", 0, "i1"]


FORK_PROGRAM = '''
import os
import numpy as np
import astjax
import astjax.numpy as jnp


def wave(x):
    return jnp.sin(x) * 2.0 + 1.0


g = astjax.jit(wave, backend="numba")
x = np.linspace(0.0, 1.0, 200_000)
assert np.allclose(g(x), np.sin(x) * 2.0 + 1.0)  # a parallel loop has run
import numba
print("LAYER", numba.threading_layer(), flush=True)
child = os.fork()
if child == 0:
    os._exit(0 if np.allclose(g(x), np.sin(x) * 2.0 + 1.0) else 3)
print("CHILD", os.waitpid(child, 0)[1], flush=True)
'''


def test_a_process_forked_after_a_parallel_loop_carries_on(tmp_path):
    """Parallel loops run on TBB (a dependency): GNU OpenMP, Numba's fallback, kills a child
    forked after a parallel loop ran (`multiprocessing` forks)."""
    import subprocess
    import sys
    program = tmp_path / "fork_after_parallel.py"
    program.write_text(FORK_PROGRAM)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_THREADING_LAYER")}
    done = subprocess.run([sys.executable, str(program)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "LAYER tbb" in done.stdout and "CHILD 0" in done.stdout, done.stdout + done.stderr


def _compiled_around_kernel_options():
    """A loop of much math compiled by Numba before, inside and after kernel_options (each
    run once, its result checked)."""
    import numba
    from astjax.backends import vecmath
    from astjax.backends.numba import kernel_options

    def _long_body(x, out):  # a long body: LLVM alone does not interleave it
        for i in range(x.size):
            out[i] = vecmath.log1p(vecmath.exp(-x[i] * x[i]) * vecmath.tanh(x[i]))

    args = (np.ones(64, np.float32), np.empty(64, np.float32))
    before = numba.njit(_long_body)
    before(*args)
    with kernel_options():
        inside = numba.njit(_long_body)
        inside(*args)
    np.testing.assert_allclose(args[1], np.log1p(np.exp(-1.0) * np.tanh(1.0)), rtol=1e-6)
    after = numba.njit(_long_body)
    after(*args)
    return before, inside, after


def test_kernel_compiles_interleave_their_vectorised_loops():
    """Inside kernel_options, LLVM unrolls a vectorised loop into INTERLEAVE vectors per
    step (more vector loads than LLVM's own choice gives a long body), and outside it a
    user's Numba code keeps LLVM's defaults."""
    def vector_loads(fn):
        asm = "\n".join(fn.inspect_asm().values())
        return len(re.findall(r"vmovu[a-z]*\s+-?\w*\(%\w+,%\w+,\d\),\s*%[xyz]mm", asm))

    before, inside, after = _compiled_around_kernel_options()
    assert vector_loads(inside) > vector_loads(before) == vector_loads(after) > 0


def test_kernel_compiles_prefer_wide_vectors_where_the_machine_has_them():
    """Inside kernel_options a vectorised loop uses VECTOR_WIDTH-bit vectors on an AVX-512
    machine (LLVM's tuning for Intel's AVX-512 servers prefers 256 bits); a user's Numba code
    compiled after keeps LLVM's choice."""
    import llvmlite.binding
    from astjax.backends.numba.llvm_options import VECTOR_WIDTH

    def registers(fn, kind):
        return len(re.findall(rf"%{kind}mm\d+", "\n".join(fn.inspect_asm().values())))

    before, inside, after = _compiled_around_kernel_options()
    assert registers(after, "z") == registers(before, "z")
    assert registers(after, "y") == registers(before, "y")
    if "+avx512f" not in llvmlite.binding.get_host_cpu_features().flatten():
        pytest.skip("no AVX-512 here: LLVM's widths are the machine's own")
    assert VECTOR_WIDTH == 512 and registers(inside, "z") > registers(before, "z")


SLICE_PROGRAM = '''
import numpy as np
import numba.np.arrayobj as arrayobj
from numba.core import event, types
import astjax, astjax.numpy as jnp
from astjax import lax

slices = []
real = arrayobj.fancy_setslice


def counted(context, builder, sig, args, index_types, indices):
    if isinstance(sig.args[2], types.Buffer):  # (a scalar filled in checks no shapes)
        slices.append(str(sig))
    return real(context, builder, sig, args, index_types, indices)


arrayobj.fancy_setslice = counted


class Strings(event.Listener):  # what compiling a slice assignment's message brings in
    def on_start(self, ev):
        name = getattr(getattr(ev.data.get("dispatcher"), "py_func", None), "__qualname__", "")
        if "shape_context" in name or "unicode_type" in str(ev.data.get("args")):
            slices.append(name)

    def on_end(self, ev):
        pass


event.register("numba:compile", Strings())


def rows(x):  # a scan stacking rows, its gradient (a taped scan), pad, update_slice
    def step(h, r):
        h = jnp.tanh(h * 0.5 + r)
        return h, h * h
    _, ys = lax.scan(step, jnp.zeros(x.shape[1]), x)
    y = jnp.pad(ys, ((1, 1), (0, 2)))
    return jnp.sum(lax.dynamic_update_slice(y, x[:2], (1, 0)) ** 2)


def newton(a):  # a while loop of a taped (reverse-mode) carry
    def body(c):
        return c[0] - 0.1 * (c[0] - a), c[1] + 1
    return lax.while_loop(lambda c: c[1] < 5, body, (a * 2.0, 0))[0].sum()


def product(a):  # a parameter read at every step of a loop passes through rt.aligned
    return lax.fori_loop(0, 3, lambda i, w: jnp.tanh(a.T @ (a @ w)), a[0]).sum()


def moved(a):  # transposes made contiguous (Numba's transpose(axes) permutes by slice)
    return jnp.sort(a, axis=0), jnp.transpose(a[None], (2, 0, 1)) * 2.0


def factors(a):  # the factorisations' runtime copies each matrix into its stack
    return jnp.linalg.cholesky(a.T @ a + 4.0 * jnp.eye(4))


x = np.linspace(-1.0, 1.0, 24).reshape(6, 4)
for f, arg in ((rows, x), (astjax.grad(rows), x), (astjax.grad(newton), x[0]), (product, x),
               (moved, x), (factors, x)):
    expected = astjax.tree_util.tree_leaves(astjax.jit(f, backend="numpy")(arg))
    for got, want in zip(astjax.tree_util.tree_leaves(astjax.jit(f, backend="numba")(arg)),
                         expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10)
print("SLICES", len(slices), slices, flush=True)
'''


def test_generated_kernels_copy_rows_without_slice_assignment(tmp_path):
    """No kernel, nor a runtime function it calls, lowers Numba's slice assignment of an
    array: its shape-mismatch message compiles Numba's string formatting, 2.7 s of the first
    such kernel in a process (rt.aligned's copy cost a fresh machine's first product 3 s)."""
    import subprocess
    import sys
    program = tmp_path / "slices.py"
    program.write_text(SLICE_PROGRAM)
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))  # (compiled here, not loaded)
    done = subprocess.run([sys.executable, str(program)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "SLICES 0 []" in done.stdout, done.stdout


def test_a_dynamic_slice_at_a_loop_counter_without_x64():
    """Without x64 the unrolled counter's start is the literal `np.int32(0)`: it was read with
    int() and the kernel failed to generate (JAX's mnist_vae example)."""
    images = np.arange(16.0, dtype=np.float32).reshape(8, 2)
    with astjax.enable_x64(False):
        got = astjax.jit(numba_cases.batches_of_a_loop, backend="numba")(images)
    assert float(got) == sum(float(np.sum(images[(i % 4) * 2:(i % 4) * 2 + 2] ** 2))
                             for i in range(4))


@pytest.mark.parametrize("first_read_only", [False, True])
def test_one_overload_takes_read_only_and_writable_arrays(first_read_only):
    """XLA's results are read-only arrays and NumPy's are not: the kernel is compiled once,
    for read-only arrays, and takes both (a second compile of a large kernel held the GIL for
    3 s where JAX's mnist_classifier example switched tiers)."""
    x = np.linspace(0.0, 1.0, 8)
    frozen = x.copy()
    frozen.flags.writeable = False
    f = astjax.jit(numba_cases.chain, backend="numba")
    for arg in ([frozen, x] if first_read_only else [x, frozen]):
        np.testing.assert_allclose(f(arg), astjax.jit(numba_cases.chain, backend="numpy")(x),
                                   rtol=1e-12)
    assert len(f.last.call.kernel.overloads) == 1
