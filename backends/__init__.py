"""Backends: each compiles core form to something that runs."""
