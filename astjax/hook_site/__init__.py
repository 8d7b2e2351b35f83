"""A folder put first on the PYTHONPATH of child interpreters by `python -m astjax run`
(see sitecustomize.py)."""
