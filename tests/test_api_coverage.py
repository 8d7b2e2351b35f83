"""How much of JAX's public API astjax has (tests/api_coverage.py measures it against the
installed JAX): never less than the floors below, which rise as names land, and README's table
is exactly what the measurement prints."""
import os

import pytest

pytest.importorskip("jax")
import api_coverage  # noqa: E402

# names astjax has, per module (the target is 95% of JAX's in each)
FLOORS = {"numpy": 330, "numpy.linalg": 31, "numpy.fft": 18, "lax": 177, "nn": 35,
          "nn.initializers": 19, "scipy.special": 53, "scipy.linalg": 40, "scipy.optimize": 1,
          "scipy.stats": 115, "random": 47, "ops": 4}


@pytest.fixture(scope="module")
def rows():
    return api_coverage.coverage()


def test_coverage_never_drops_below_the_floors(rows):
    low = {name: (have, FLOORS[name], missing) for name, have, _, missing in rows
           if have < FLOORS[name]}
    assert not low, f"coverage below its floor (have, floor, missing): {low}"


def test_every_module_is_measured(rows):
    assert [name for name, *_ in rows] == list(FLOORS)


def test_readme_shows_the_measured_table(rows):
    path = os.path.join(os.path.dirname(__file__), "..", "README.md")
    with open(path, encoding="utf-8") as f:
        readme = f.read()
    start = readme.index(api_coverage.README_START) + len(api_coverage.README_START) + 1
    shown = readme[start:readme.index(api_coverage.README_END)].strip()
    assert shown == api_coverage.table(rows), \
        "README's API coverage table is stale: run python tests/api_coverage.py --readme"
