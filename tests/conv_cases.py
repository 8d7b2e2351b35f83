"""Convolutions for tests/test_convolution.py (compiled functions come from a file)."""
import astjax.numpy as jnp
from astjax import lax

CONFIGS = {  # name -> (lhs shape, rhs shape, keyword arguments of conv_general_dilated)
    "nchw_valid": ((2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(1, 1), padding="VALID")),
    "nhwc_same_strided": ((2, 7, 6, 3), (3, 2, 3, 4),
                          dict(window_strides=(2, 1), padding="SAME", rhs_dilation=(1, 2),
                               dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "1d_groups_lhs_dilation": ((2, 4, 6), (6, 2, 3),
                               dict(window_strides=(2,), padding=((1, 2),), lhs_dilation=(2,),
                                    feature_group_count=2)),
    "1d_batch_groups": ((4, 3, 7), (6, 3, 3),
                        dict(window_strides=(1,), padding=((0, -1),), batch_group_count=2)),
    "3d_same_lower": ((1, 2, 4, 5, 3), (3, 2, 2, 2, 2),
                      dict(window_strides=(1, 2, 1), padding="SAME_LOWER")),
}


def make(name):
    params = CONFIGS[name][2]

    def conv(x, w):
        return lax.conv_general_dilated(x, w, **params)
    return conv


def weighted_loss(name):
    conv = make(name)

    def loss(x, w, u):
        return jnp.sum(conv(x, w) * u)
    return loss


def small_cnn(params, images):
    h = lax.conv_general_dilated(images, params["w1"], (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jnp.tanh(h + params["b1"])
    h = lax.conv_general_dilated(h, params["w2"], (2, 2), "VALID",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.mean(h ** 2)
