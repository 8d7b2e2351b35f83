"""Differentially private SGD (Abadi et al., 2016) on scikit-learn's digits: per-example
gradients with vmap(grad), each clipped to an l2 norm, summed, noised with astjax.random and
averaged; written as a JAX program. Prints the test accuracy.

    python examples/dp_sgd.py --steps 300 --noise 1.1 --clip 1.0
"""
import argparse
import sys

import numpy as np

import astjax as jax
import astjax.numpy as jnp
from astjax.example_libraries import optimizers, stax


def parse():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--clip", type=float, default=1.0, help="l2 bound per example")
    parser.add_argument("--noise", type=float, default=1.1, help="noise multiplier")
    parser.add_argument("--rate", type=float, default=0.15)
    return parser.parse_args()


init_net, apply_net = stax.serial(stax.Flatten, stax.Dense(32), stax.Tanh, stax.Dense(10),
                                  stax.LogSoftmax)


def loss(params, image, label):
    """One example's loss (a batch of one through the network)."""
    log_probs = apply_net(params, image[None])
    return -log_probs[0, label]


def private_gradient(params, images, labels, key, clip, noise):
    per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, images, labels)
    leaves, tree = jax.tree_util.tree_flatten(per_example)
    norms = jnp.sqrt(sum(jnp.sum(leaf.reshape(leaf.shape[0], -1) ** 2, axis=1) for leaf in leaves))
    scale = jnp.minimum(1.0, clip / (norms + 1e-12))  # each example's gradient clipped
    keys = jax.random.split(key, len(leaves))
    noisy = [jnp.sum(leaf * scale.reshape((-1,) + (1,) * (leaf.ndim - 1)), axis=0)
             + noise * clip * jax.random.normal(k, leaf.shape[1:], leaf.dtype)
             for leaf, k in zip(leaves, keys)]
    return jax.tree_util.tree_unflatten(tree, [g / images.shape[0] for g in noisy])


def main():
    args = parse()
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(labels))
    images, labels = images[order], labels[order]
    split = int(0.8 * len(labels))
    _, params = init_net(jax.random.PRNGKey(0), (-1, 8, 8))
    params = jax.tree_util.tree_map(lambda p: np.asarray(p, np.float32), params)
    opt_init, opt_update, get_params = optimizers.sgd(args.rate)
    state = opt_init(params)

    @jax.jit
    def step(i, state, batch_images, batch_labels, key):
        grads = private_gradient(get_params(state), batch_images, batch_labels, key,
                                 args.clip, args.noise)
        return opt_update(i, grads, state)

    rng, key = np.random.default_rng(1), jax.random.PRNGKey(42)
    for i in range(args.steps):
        chosen = rng.choice(split, args.batch, replace=False)
        state = step(i, state, images[chosen], labels[chosen], jax.random.fold_in(key, i))
    log_probs = apply_net(get_params(state), images[split:])
    accuracy = float(np.mean(np.argmax(np.asarray(log_probs), axis=1) == labels[split:]))
    print(f"test accuracy {accuracy:.4f} (clip {args.clip}, noise multiplier {args.noise})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
