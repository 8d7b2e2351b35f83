"""JAX's example libraries written for astjax: `optimizers` (stax is still to come)."""
