"""Details of JAX's API that JAX programs rely on, against JAX itself: take's modes, repeat
with total_repeat_length, grad's allow_int, fori_loop's unroll, jax.Array and jax.typing,
and 32-bit dtypes without x64 where a Python number meets a float32 array."""
import importlib

import numpy as np
import pytest

import astjax
import parity_cases as cases

jax = pytest.importorskip("jax")
jnp = jax.numpy

V = np.arange(5.0, dtype=np.float32)
I = np.array([0, 7, -1, -7, 4], np.int32)
A = np.arange(6.0, dtype=np.float32).reshape(2, 3)
IA = np.array([[0, 5, -1], [2, -4, 1]], np.int32)


def _same(got, want):
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.fixture
def without_x64():
    astjax.config.update("jax_enable_x64", False)
    yield
    astjax.config.update("jax_enable_x64", True)


def _jax_take_modes(v, i):
    return (jnp.take(v, i), jnp.take(v, i, mode="clip"), jnp.take(v, i, mode="wrap"),
            jnp.take(v, i, mode="fill", fill_value=-3.0))


def _jax_take_along(a, i):
    return jnp.take_along_axis(a, i, axis=1), jnp.take_along_axis(a, i, axis=1, mode="clip")


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_take_and_take_along_axis_modes_as_jax(backend, without_x64):
    _same(astjax.jit(cases.take_modes, backend=backend)(V, I), _jax_take_modes(V, I))
    _same(cases.take_modes(V, I), _jax_take_modes(V, I))
    _same(astjax.jit(cases.take_along_modes, backend=backend)(A, IA), _jax_take_along(A, IA))


@pytest.mark.parametrize("counts", [np.array([3, 0, 2]), np.array([1, 1, 1]), np.array([4, 4, 4]),
                                    np.array([0, 2, 1])])
def test_repeat_to_a_total_length_as_jax(counts, without_x64):
    a = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    want = jnp.repeat(a, counts, axis=0, total_repeat_length=6)
    _same(astjax.jit(cases.repeat_to_length)(a, counts.astype(np.int32)), want)
    _same(cases.repeat_to_length(a, counts), want)


def test_grad_allow_int_gives_float0_for_integers():
    p = {"w": np.ones(3), "step": np.int32(4)}
    got = astjax.jit(astjax.grad(cases.counted_loss, allow_int=True))(p)
    want = jax.grad(lambda p: jnp.sum(p["w"] ** 2) * p["step"], allow_int=True)(p)
    np.testing.assert_allclose(got["w"], want["w"])
    assert got["step"].dtype == want["step"].dtype and got["step"].shape == ()
    with pytest.raises(astjax.AstjaxError, match="requires real- or complex-valued inputs"):
        astjax.grad(cases.counted_loss)(p)


def test_fori_loop_takes_unroll(without_x64):
    want = jax.lax.fori_loop(0, 10, lambda i, c: c * 0.9 + i, V, unroll=2)
    _same(astjax.jit(cases.unrolled)(V), want)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_python_numbers_stay_32_bit_without_x64(backend, without_x64):
    want = V * jnp.broadcast_to(1.0, V.shape) + jnp.concatenate([V[:1], jnp.ones(4)])
    _same(astjax.jit(cases.broadcast_python_number, backend=backend)(V), want)
    got = astjax.vjp(lambda a: (astjax.numpy.sum(a ** 2), a.mean()), V, has_aux=True)[1](1.0)
    assert got[0].dtype == np.float32


def test_jax_array_and_typing_names():
    assert isinstance(astjax.numpy.ones(2), astjax.Array)
    np.testing.assert_allclose(astjax.jit(cases.annotated)(V), 2 * V)
    typing = importlib.import_module("astjax.typing")
    assert typing.ArrayLike is not None and typing.DTypeLike is not None


def test_cumulative_sum_and_prod_with_the_initial_value_as_jax():
    x = np.arange(1.0, 7.0).reshape(2, 3)
    np.testing.assert_allclose(astjax.numpy.cumulative_sum(x[0], include_initial=True),
                               jnp.cumulative_sum(x[0], include_initial=True))
    np.testing.assert_allclose(
        astjax.numpy.cumulative_prod(x, axis=1, include_initial=True),
        jnp.cumulative_prod(x, axis=1, include_initial=True))
    np.testing.assert_allclose(astjax.numpy.cumulative_sum(x, axis=0), np.cumsum(x, axis=0))


class _Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


def test_register_pytree_with_keys_gives_its_keys_to_paths():
    from astjax import tree_util
    tree_util.register_pytree_with_keys(
        _Pair, lambda p: (((tree_util.GetAttrKey("a"), p.a), (tree_util.GetAttrKey("b"), p.b)),
                          None),
        lambda aux, children: _Pair(*children))
    pairs, _ = tree_util.tree_flatten_with_path({"x": _Pair(1.0, [2.0])})
    assert [tree_util.keystr(path) for path, _ in pairs] == ["['x'].a", "['x'].b[0]"]
    doubled = tree_util.tree_map(lambda v: v * 2, _Pair(1.0, 2.0))
    assert (doubled.a, doubled.b) == (2.0, 4.0)


def test_placement_and_profiler_names_jax_programs_call():
    x = astjax.numpy.ones(3)
    assert astjax.default_backend() == "cpu" and len(x.devices()) == 1
    assert x.sharding.is_fully_replicated and x.is_fully_addressable
    np.testing.assert_allclose(x.addressable_shards[0].data, x)
    with astjax.profiler.trace("/tmp/unused"), astjax.profiler.TraceAnnotation("step"):
        assert x.copy_to_host_async() is None


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_products_take_precision_and_preferred_element_type(backend, without_x64):
    a, b = A, A.T.copy()
    i = np.arange(4, dtype=np.int32).reshape(2, 2)
    hi = jax.lax.Precision.HIGHEST
    want = (jnp.dot(a, b, precision=hi), jnp.matmul(a, b, precision="highest"),
            jnp.einsum("ij,jk->ik", a, b, precision=hi), jnp.tensordot(a, b, 1, precision=hi),
            jnp.inner(a, a, precision=hi), jnp.vdot(a, a, precision=hi),
            jnp.dot(i, i, preferred_element_type=jnp.float32))
    _same(astjax.jit(cases.precise_products, backend=backend)(a, b, i), want)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_bfloat16_as_jax(backend, without_x64):
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    want = (jnp.exp(x.astype(jnp.bfloat16)) * 2).astype(jnp.float32)
    got = astjax.jit(cases.through_bfloat16, backend=backend)(x)
    np.testing.assert_allclose(got, want, rtol=1e-2)  # (bfloat16 keeps 8 bits of mantissa)
    assert astjax.numpy.finfo(astjax.numpy.bfloat16).bits == 16


def test_environment_names_jax_programs_call():
    x = astjax.numpy.ones((2, 3), np.float32)
    with astjax.debug_nans(True), astjax.transfer_guard("allow"), \
            astjax.default_device(astjax.devices()[0]), astjax.numpy_rank_promotion("raise"):
        t = astjax.typeof(x)
    assert (t.shape, t.dtype) == ((2, 3), np.float32)
    assert astjax.host_count() == 1 and astjax.process_indices() == [0]
    assert astjax.float0 == jax.dtypes.float0
    assert astjax.lax.Precision("highest") is astjax.lax.Precision.HIGHEST
    assert tuple(astjax.P("x", None)) == tuple(jax.P("x", None))
    built = astjax.make_array_from_callback((2, 3), None, lambda idx: np.arange(6.0).reshape(2, 3)[idx])
    np.testing.assert_allclose(built, np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(
        astjax.vmap(cases.scaled_by_axis_size, axis_name="i")(np.ones(3)), 3.0)
    assert "astjax" in astjax.print_environment_info(return_string=True)


def test_devices_stays_a_function_after_device_put():
    code = ("import astjax; astjax.device_put(1.0); "
            "assert callable(astjax.devices) and len(astjax.devices()) >= 1")
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("shape", [(4, 8), (5, 2, 8), (2, 5, 2, 8)])
def test_dot_product_attention_of_lower_ranks_as_jax(shape):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(shape).astype(np.float32) for _ in range(3))
    want = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    got = astjax.jit(lambda q, k, v: astjax.nn.dot_product_attention(q, k, v, is_causal=True))(
        q, k, v)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_multivariate_normal_of_one_variable_as_jax():
    x = np.array([0.5, 1.0, -2.0])
    with jax.enable_x64(True):
        want = jax.scipy.stats.multivariate_normal.logpdf(x, 0.0, 2.0)
    np.testing.assert_allclose(astjax.scipy.stats.multivariate_normal.logpdf(x, 0.0, 2.0), want)


@pytest.mark.parametrize("x64", [True, False])
def test_dtypes_jax_fixes_as_jax(x64):
    v = np.array([2.0, -1.0, 0.5, 3.0, 1.5], np.float32)
    iv = np.arange(1, 4, dtype=np.int32)
    with jax.enable_x64(x64), astjax.enable_x64(x64):
        want = _jax_dtypes_jax_fixes(v, iv)
        _same(cases.dtypes_jax_fixes(v, iv), want)
        _same(astjax.jit(cases.dtypes_jax_fixes)(v, iv), want)


def _jax_dtypes_jax_fixes(v, iv):
    return (jnp.searchsorted(jnp.sort(v), v[:3]), jnp.digitize(v, jnp.array([0.5, 2.5])),
            jnp.argpartition(v, 1), jnp.tri(3, 4, 1), jnp.linspace(jnp.int32(iv[0]), 4, 3),
            jnp.float_power(v, 2), jnp.vecdot(iv, iv), jnp.append(v, 1.0))


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_a_weak_counter_converted_to_a_float_stays_weak(backend):
    w = np.linspace(1.0, 2.0, 3).astype(np.float32)
    with jax.enable_x64(True):  # (astjax's default: 0.9 ** t is a weak float64)
        want = jax.lax.fori_loop(0, 5, lambda i, w: w - 0.1 * w / (1 - 0.9 ** (i + 1)), w)
    _same(astjax.jit(cases.adam_bias_correction, backend=backend)(w), want)


def test_vmap_maps_the_given_arguments_only():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    got = cases.sum_all_but_keyword_defaults(x)
    _same(got, (jax.vmap(jnp.sum, in_axes=-1)(x), jax.vmap(jnp.sum)(x)))


@pytest.mark.parametrize("method, args", [("argmax", (1,)), ("argmin", ()), ("argsort", ()),
                                          ("nonzero", ()), ("searchsorted", (1.5,)),
                                          ("argpartition", (1,))])
def test_index_methods_of_eager_arrays_as_jax(method, args, without_x64):
    a = np.array([[2.0, 0.5, 1.0], [3.0, -1.0, 1.5]], np.float32)
    if method == "searchsorted":
        a = np.sort(a.ravel())
    want = getattr(jnp.asarray(a), method)(*args)
    _same(getattr(astjax.numpy.asarray(a), method)(*args), want)


def test_ptp_method_and_random_bits_default_dtype():
    a = np.array([[2.0, 0.5], [3.0, -1.0]], np.float32)
    _same(astjax.numpy.asarray(a).ptp(axis=1), jnp.asarray(a).ptp(axis=1))
    for x64 in (True, False):
        with jax.enable_x64(x64), astjax.enable_x64(x64):
            _same(astjax.random.bits(astjax.random.PRNGKey(3), (4,)),
                  jax.random.bits(jax.random.PRNGKey(3), (4,)))


def _eager_loops(lib):
    return (lib.lax.fori_loop(0, 3, lambda i, c: c + 1.0, 0.0),
            lib.lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0),
            lib.lax.scan(lambda c, _: (c * 0.5 + 1.0, c), 1.0, None, length=3))


@pytest.mark.parametrize("x64", [True, False])
def test_eager_loops_return_arrays_as_jax(x64):
    with jax.enable_x64(x64), astjax.enable_x64(x64):
        got = _eager_loops(astjax)
        _same(got, _eager_loops(jax))
        assert got[0].block_until_ready() == 3.0


def test_check_grads_passes_right_derivatives_and_catches_wrong_ones():
    from astjax.test_util import check_grads
    x, y = np.linspace(0.1, 1.0, 3), np.linspace(-1.0, 1.0, 3)
    check_grads(cases.smooth, (x, y), order=2)
    for mode in ("fwd", "rev"):
        with pytest.raises(AssertionError, match="order 1"):
            check_grads(cases.sin_with_a_wrong_derivative, (x,), order=1, modes=(mode,))


def test_jax_error_names_catch_astjax_errors():
    with pytest.raises(astjax.errors.ConcretizationTypeError):
        astjax.jit(cases.sized_by)(3.0)
    assert astjax.errors.TracerBoolConversionError is astjax.errors.ConcretizationError
    assert astjax.errors.JaxRuntimeError is jax.errors.JaxRuntimeError


def test_host_arrays_from_buffers_files_and_dlpack_as_jax(tmp_path, without_x64):
    anp = astjax.numpy
    raw = np.arange(4, dtype=np.float32).tobytes()
    _same(anp.frombuffer(raw, np.float32), jnp.frombuffer(raw, np.float32))
    _same(anp.fromiter(range(5), np.int32), np.arange(5, dtype=np.int32))  # (JAX refuses it)
    _same(anp.fromstring("1 2 3", np.float32, sep=" "), jnp.fromstring("1 2 3", np.float32, sep=" "))
    _same(anp.from_dlpack(jnp.arange(3.0)), jnp.arange(3.0))
    _same(astjax.dlpack.from_dlpack(jnp.arange(3.0)), jnp.arange(3.0))
    _same(jax.dlpack.from_dlpack(anp.arange(3.0)), jnp.arange(3.0))  # (and the other way)
    anp.save(tmp_path / "a.npy", anp.arange(3.0))
    loaded = anp.load(tmp_path / "a.npy")
    assert isinstance(loaded, astjax.Array) and list(loaded) == [0.0, 1.0, 2.0]


def test_tree_util_key_classes_and_node_types_as_jax():
    def flattened(tu):
        @tu.register_pytree_with_keys_class
        class Pair:
            def __init__(self, a, b):
                self.a, self.b = a, b

            def tree_flatten_with_keys(self):
                return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)
        paths = [tu.keystr(k) for k, _ in tu.tree_flatten_with_path(Pair(1.0, [2.0, 3.0]))[0]]
        level = [tu.keystr((k,)) for k, _ in tu.flatten_one_level_with_keys({"x": 1, "y": (2,)})[0]]
        return paths, level, [tu.is_tree_node(t) for t in (list, dict, float, Pair)]
    assert flattened(astjax.tree_util) == flattened(jax.tree_util)


def test_names_programs_read_from_the_top_level():
    import warnings
    from astjax.experimental.compilation_cache import compilation_cache as cache
    assert isinstance(astjax.devices()[0], astjax.Device)
    assert astjax.version.__version__ == astjax.__version__
    assert astjax.effects_barrier() is None and astjax.copy_to_host_async(3) == 3
    assert astjax.stages.Wrapped is type(astjax.jit(cases.annotated))
    assert astjax.custom_derivatives.custom_vjp is astjax.custom_vjp
    assert astjax.config.jax_enable_x64 is True and astjax.config.jax_disable_jit is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (astjax caches compiled code on disk anyway)
        astjax.config.update("jax_compilation_cache_dir", "/tmp/unused")
        cache.set_cache_dir("/tmp/unused")
    assert cache.is_initialized()
