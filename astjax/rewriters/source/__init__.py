"""Signature-free libcst passes on the user's function, each keeping provenance."""
