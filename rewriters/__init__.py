"""Source-to-source passes: each turns Python source (or core form) into new source.

Installed as `astjax.rewriters`; importing this folder as a top-level `rewriters` package
would load a second copy of every rule module (and register every rule twice), so it refuses.
"""
if __name__ != "astjax.rewriters":
    raise ImportError("import astjax.rewriters, not the rewriters folder directly")
