"""A variational autoencoder (Kingma and Welling, 2014) on scikit-learn's digits, written as
a JAX program: an encoder to a Gaussian posterior, the reparameterisation trick with
astjax.random, a Bernoulli decoder, Adam on the negative ELBO; then new digits decoded from
prior samples, written as a PNG grid.

    python examples/vae.py --steps 1500 --samples digits_samples.png
"""
import argparse
import sys

import numpy as np

import astjax as jax
import astjax.numpy as jnp
from astjax.example_libraries import optimizers, stax

LATENT = 4

encoder_init, encode = stax.serial(stax.Dense(64), stax.Softplus, stax.FanOut(2),
                                   stax.parallel(stax.Dense(LATENT), stax.Dense(LATENT)))
decoder_init, decode = stax.serial(stax.Dense(64), stax.Softplus, stax.Dense(64))


def parse():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--samples", default="digits_samples.png")
    return parser.parse_args()


def negative_elbo(params, images, key):
    """-ELBO per image: Bernoulli reconstruction loss plus the KL of the posterior from N(0, I)."""
    enc, dec = params
    mean, log_var = encode(enc, images)
    z = mean + jnp.exp(0.5 * log_var) * jax.random.normal(key, mean.shape, mean.dtype)
    logits = decode(dec, z)
    reconstruction = jnp.sum(jnp.logaddexp(0.0, logits) - images * logits, axis=1)
    kl = 0.5 * jnp.sum(jnp.exp(log_var) + mean ** 2 - 1.0 - log_var, axis=1)
    return jnp.mean(reconstruction + kl)


def main():
    args = parse()
    from sklearn.datasets import load_digits
    images = (load_digits().images.reshape(-1, 64) / 16.0 > 0.5).astype(np.float32)
    key = jax.random.PRNGKey(0)
    k_enc, k_dec = jax.random.split(key)
    _, enc = encoder_init(k_enc, (-1, 64))
    _, dec = decoder_init(k_dec, (-1, LATENT))
    params = jax.tree_util.tree_map(lambda p: np.asarray(p, np.float32), (enc, dec))
    opt_init, opt_update, get_params = optimizers.adam(2e-3)
    state = opt_init(params)

    @jax.jit
    def step(i, state, batch, key):
        value, grads = jax.value_and_grad(negative_elbo)(get_params(state), batch, key)
        return opt_update(i, grads, state), value

    rng = np.random.default_rng(1)
    first = None
    for i in range(args.steps):
        batch = images[rng.choice(len(images), args.batch, replace=False)]
        state, value = step(i, state, batch, jax.random.fold_in(key, i))
        first = float(value) if first is None else first
    final = float(negative_elbo(get_params(state), images, jax.random.PRNGKey(7)))
    print(f"negative ELBO per image: {first:.2f} at the start, {final:.2f} at the end")
    _, dec = get_params(state)
    z = jax.random.normal(jax.random.PRNGKey(3), (16, LATENT), jnp.float32)
    samples = np.asarray(jax.nn.sigmoid(decode(dec, z))).reshape(16, 8, 8)
    _grid(samples, args.samples)
    return 0


def _grid(samples, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(4, 4, figsize=(4, 4))
    for ax, image in zip(axes.ravel(), samples):
        ax.imshow(image, cmap="gray_r", vmin=0, vmax=1)
        ax.axis("off")
    figure.savefig(path)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
