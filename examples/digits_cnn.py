"""A small convolutional network trained on scikit-learn's bundled digits (8x8 images, no
download), written as a JAX program: parameters from astjax.random, layers from stax, Adam
from optimizers, a jitted training step. Prints the test accuracy and writes the loss curve.

    python examples/digits_cnn.py                      # about 95-98% test accuracy
    python examples/digits_cnn.py --epochs 3 --plot loss.png --backend numba
"""
import argparse
import sys

import numpy as np

import astjax as jax
import astjax.numpy as jnp
from astjax.example_libraries import optimizers, stax


def parse():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--backend", default=None, choices=["numpy", "numba", "xla"])
    parser.add_argument("--plot", default="digits_loss.png", help="where to write the curve")
    return parser.parse_args()


def data():
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[..., None]  # (n, 8, 8, 1)
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(labels))
    images, labels = images[order], labels[order]
    split = int(0.8 * len(labels))
    return (images[:split], labels[:split]), (images[split:], labels[split:])


init_net, apply_net = stax.serial(
    stax.Conv(16, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), strides=(2, 2)),
    stax.Conv(32, (3, 3), padding="SAME"), stax.Relu, stax.MaxPool((2, 2), strides=(2, 2)),
    stax.Flatten, stax.Dense(64), stax.Relu, stax.Dense(10), stax.LogSoftmax)


def loss(params, images, labels):
    log_probs = apply_net(params, images)
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))


def accuracy(params, images, labels):
    return float(np.mean(np.argmax(np.asarray(apply_net(params, images)), axis=1) == labels))


def main():
    args = parse()
    (train_x, train_y), (test_x, test_y) = data()
    opt_init, opt_update, get_params = optimizers.adam(3e-3)
    _, params = init_net(jax.random.PRNGKey(0), (-1, 8, 8, 1))
    params = jax.tree_util.tree_map(lambda p: np.asarray(p, np.float32), params)
    state = opt_init(params)

    @jax.jit
    def step(i, state, images, labels):
        value, grads = jax.value_and_grad(loss)(get_params(state), images, labels)
        return opt_update(i, grads, state), value

    if args.backend:
        step = jax.jit(step.fun, backend=args.backend)
    rng = np.random.default_rng(1)
    losses, i = [], 0
    for epoch in range(args.epochs):
        order = rng.permutation(len(train_y))
        for start in range(0, len(order) - args.batch + 1, args.batch):
            chosen = order[start:start + args.batch]
            state, value = step(i, state, train_x[chosen], train_y[chosen])
            losses.append(float(value))
            i += 1
        print(f"epoch {epoch + 1}: loss {np.mean(losses[-10:]):.4f}")
    test_accuracy = accuracy(get_params(state), test_x, test_y)
    print(f"test accuracy {test_accuracy:.4f}")
    _plot(losses, args.plot)
    return 0


def _plot(losses, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(5, 3))
    axes.plot(losses)
    axes.set_xlabel("step")
    axes.set_ylabel("training loss")
    axes.set_yscale("log")
    figure.tight_layout()
    figure.savefig(path)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
