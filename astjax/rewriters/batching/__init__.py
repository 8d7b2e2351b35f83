"""Batching (vmap) of core form, with every batching rule loaded into its table."""
