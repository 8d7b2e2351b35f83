"""The Numba backend's two convolution kernels side by side, with JAX for reference:
`conv5` (a direct loop over each output element's window) and `conv5_gemm` (im2col: each
window copied to a row of a patch matrix, one BLAS product with the kernel).

    python bench/conv_bench.py

Prints the median time of each on a few layer shapes (NCHW x OIHW, stride 1, SAME padding)
and the ratio direct / gemm (above 1: the patch matrix is faster)."""
import time

import numpy as np

from astjax.backends.numba.conv_runtime import conv5, conv5_gemm

SHAPES = {  # name: (input N, C, H, W), (kernel O, I, KH, KW)
    "digits layer 1": ((32, 1, 8, 8), (8, 1, 3, 3)),
    "digits layer 2": ((32, 8, 8, 8), (16, 8, 3, 3)),
    "wider": ((16, 16, 16, 16), (32, 16, 3, 3)),
    "cifar-like": ((8, 32, 32, 32), (64, 32, 3, 3)),
}


def median_time(fn, repeats=7):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    rng = np.random.default_rng(0)
    try:
        import jax
        from jax import lax
    except ImportError:
        jax = None
    print(f"{'shape':16} {'direct ms':>10} {'gemm ms':>10} {'jax ms':>10} {'direct/gemm':>12}")
    for name, (xs, ws) in SHAPES.items():
        x = rng.standard_normal(xs).astype(np.float32)
        w = rng.standard_normal(ws).astype(np.float32)
        x5, w5 = x[:, :, None], w[:, :, None]
        out = np.empty((xs[0], ws[0], 1, xs[2], xs[3]), np.float32)
        pads = (0, ws[2] // 2, ws[3] // 2)
        direct = median_time(lambda: conv5(x5, w5, out, (1, 1, 1), pads, (1, 1, 1), (1, 1, 1),
                                           1, 1))
        reference = out.copy()
        gemm = median_time(lambda: conv5_gemm(x5, w5, out, (1, 1, 1), pads, (1, 1, 1)))
        assert np.allclose(out, reference, rtol=1e-4, atol=1e-4)
        jax_ms = float("nan")
        if jax is not None:
            conv = jax.jit(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "SAME"))
            jax_ms = median_time(lambda: conv(x, w).block_until_ready()) * 1e3
        print(f"{name:16} {direct * 1e3:10.3f} {gemm * 1e3:10.3f} {jax_ms:10.3f} "
              f"{direct / gemm:12.2f}")


if __name__ == "__main__":
    main()
