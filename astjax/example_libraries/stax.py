"""Neural-network layers as `jax.example_libraries.stax` defines them: each layer is a pair

    init_fun(rng, input_shape) -> (output_shape, params)
    apply_fun(params, inputs, **kwargs) -> outputs

composed with `serial`, `parallel`, `FanOut`, `FanInSum`/`FanInConcat` and `shape_dependent`.
Written for astjax (astjax.numpy, astjax.lax, astjax.random); parameters are initialised as
JAX's are (glorot normal kernels, small normal biases).
"""
import functools
import math

import numpy as np

from .. import lax, random
from .. import numpy as jnp
from ..core.prims.convolution import conv_out_shape
from ..nn import elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax, softplus, \
    standardize


# ---------------------------------------------------------------- initialisers (jax.nn's)
def zeros(key, shape, dtype=None):
    return jnp.zeros(shape, dtype or _float())


def ones(key, shape, dtype=None):
    return jnp.ones(shape, dtype or _float())


def normal(stddev=1e-2):
    return lambda key, shape, dtype=None: random.normal(key, shape, dtype or _float()) * stddev


def glorot_normal(in_axis=-2, out_axis=-1):
    """Truncated normal with variance 1 / mean(fan_in, fan_out) (variance scaling)."""
    def init(key, shape, dtype=None):
        dtype = dtype or _float()
        shape = tuple(shape)
        receptive = math.prod(d for i, d in enumerate(shape)
                              if i not in (in_axis % len(shape), out_axis % len(shape)))
        fan_in, fan_out = shape[in_axis] * receptive, shape[out_axis] * receptive
        std = np.sqrt(1.0 / ((fan_in + fan_out) / 2.0)) / .87962566103423978
        return random.truncated_normal(key, -2.0, 2.0, shape, dtype) * np.asarray(std, dtype)
    return init


def _float():
    from ..config import default_dtype
    return default_dtype("float")


# ---------------------------------------------------------------- layers
def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        return tuple(input_shape[:-1]) + (out_dim,), (W_init(k1, (input_shape[-1], out_dim)),
                                                      b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_shape(spec, input_shape, lhs_spec, out_chan, filter_shape):
    sizes = iter(filter_shape)
    return [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(sizes)
            for c in spec]


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
                W_init=None, b_init=normal(1e-6)):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(rhs_spec, input_shape, lhs_spec, out_chan, filter_shape)
        output_shape = conv_general_shape_tuple(input_shape, kernel_shape, strides, padding,
                                                dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return lax.conv_general_dilated(inputs, W, strides, padding, one, one,
                                        dimension_numbers=dimension_numbers) + b
    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding="VALID", W_init=None, b_init=normal(1e-6)):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(rhs_spec, input_shape, lhs_spec, out_chan, filter_shape)
        probe = lax.conv_transpose(np.zeros(input_shape), np.zeros(kernel_shape), strides,
                                   padding, dimension_numbers=dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return tuple(np.shape(probe)), (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return lax.conv_transpose(inputs, W, strides, padding,
                                  dimension_numbers=dimension_numbers) + b
    return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    dn = lax.conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    spatial = len(lhs_shape) - 2
    if isinstance(padding, str):
        in_shape = [lhs_shape[a] for a in dn.lhs_spec[2:]]
        window = [rhs_shape[a] for a in dn.rhs_spec[2:]]
        padding = lax.padtype_to_pads(in_shape, window, window_strides, padding)
    return conv_out_shape(tuple(lhs_shape), tuple(rhs_shape), window_strides=window_strides,
                          padding=tuple(padding), lhs_dilation=(1,) * spatial,
                          rhs_dilation=(1,) * spatial, dimension_numbers=tuple(dn),
                          feature_group_count=1, batch_group_count=1)


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    axis = (axis,) if np.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        expand = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[expand] * z + beta[expand]
        if center:
            return z + beta[expand]
        if scale:
            return gamma[expand] * z
        return z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A parameterless layer applying `fun` to each element."""
    return (lambda rng, input_shape: (input_shape, ()),
            lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs))


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _pooling_layer(reducer, init_val, rescaler=None):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        window_shape = tuple(window_shape)
        strides = tuple(strides or (1,) * len(window_shape))
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        non_spatial = (0, len(window_shape) + 1) if spec is None else \
            (spec.index("N"), spec.index("C"))
        dims, steps = window_shape, strides
        for i in sorted(non_spatial):
            dims = dims[:i] + (1,) + dims[i:]
            steps = steps[:i] + (1,) + steps[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, dims, steps, padding) \
                if isinstance(padding, str) else padding
            out = tuple((n + lo + hi - w) // s + 1
                        for n, (lo, hi), w, s in zip(input_shape, pads, dims, steps))
            return out, ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, dims, steps, padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax.max, -jnp.inf)
SumPool = _pooling_layer(lax.add, 0.0)


def _normalize_by_window_size(dims, strides, padding):
    def rescale(outputs, inputs, spec):
        non_spatial = (0, inputs.ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))
        spatial = tuple(inputs.shape[i] for i in range(inputs.ndim) if i not in non_spatial)
        sizes = lax.reduce_window(jnp.ones(spatial, dtype=inputs.dtype), 0.0, lax.add, dims,
                                  strides, padding)
        for i in sorted(non_spatial):
            sizes = jnp.expand_dims(sizes, i)
        return outputs / sizes
    return rescale


AvgPool = _pooling_layer(lax.add, 0.0, _normalize_by_window_size)

Flatten = (lambda rng, input_shape: ((input_shape[0], math.prod(input_shape[1:])), ()),
           lambda params, inputs, **kwargs: jnp.reshape(inputs, (inputs.shape[0], -1)))
Identity = (lambda rng, input_shape: (input_shape, ()),
            lambda params, inputs, **kwargs: inputs)


def FanOut(num):
    return (lambda rng, input_shape: ([input_shape] * num, ()),
            lambda params, inputs, **kwargs: [inputs] * num)


FanInSum = (lambda rng, input_shape: (input_shape[0], ()),
            lambda params, inputs, **kwargs: functools.reduce(lambda a, b: a + b, inputs))


def FanInConcat(axis=-1):
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return tuple(input_shape[0][:ax]) + (size,) + tuple(input_shape[0][ax + 1:]), ()
    return init_fun, lambda params, inputs, **kwargs: jnp.concatenate(inputs, axis)


def Dropout(rate, mode="train"):
    """Keeps each element with probability `rate` (scaled by 1 / rate), as JAX's stax does;
    apply_fun needs `rng=` in train mode."""
    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError("Dropout's apply_fun needs a PRNG key: apply_fun(params, inputs, "
                             "rng=key)")
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp.where(keep, inputs / rate, 0)
    return (lambda rng, input_shape: (input_shape, ())), apply_fun


# ---------------------------------------------------------------- combinators
def serial(*layers):
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        for fun, param, layer_rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=layer_rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        pairs = [init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)]
        return [s for s, _ in pairs], [p for _, p in pairs]

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(layers)) if rng is not None else (None,) * len(layers)
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built once the input shape is known."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
