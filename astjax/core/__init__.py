"""The core: abstract values, the core-form IR and the one table of primitives.

Nothing here imports anything above it (no front end, no rewriter, no backend)."""
