"""The front end parses the definition it compiles and the module's top level: other
functions' bodies are left out, their lines blank, so every position stays the user's."""
import glob
import importlib.util
import os
import textwrap

import libcst as cst
import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError
from astjax.frontend import source

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("folder", ["astjax", "tests"])
def test_every_outline_of_the_repos_files_parses_and_keeps_its_lines(folder):
    for path in glob.glob(os.path.join(REPO, folder, "**", "*.py"), recursive=True):
        text = open(path, encoding="utf-8").read()
        outline = source._outline_of(text)
        if outline is None:
            continue
        lines = text.splitlines()
        for first, last, *_ in outline.spans:
            reduced = outline.text((first, last))
            cst.parse_module(reduced)  # (raises where an outline is not Python)
            kept = reduced.splitlines()
            assert len(kept) == len(lines), path
            assert kept[first - 1:last] == lines[first - 1:last], (path, first)


PROGRAM = textwrap.dedent('''
    import numpy as np
    import astjax.numpy as jnp


    def setup(n):
        global WEIGHT
        WEIGHT = 2.0 * n


    def decorated_first(dtype):
        @staticmethod
        def inner(x):
            return x
        return inner


    def uses_global(x):
        return jnp.sum(x) * WEIGHT


    def long_helper(x):
        y = x + 1.0
        y = y * 2.0
        return y


    def broken(x):
        return jnp.sum(x) + undefined_name
''')


def _load(tmp_path):
    path = tmp_path / "outlined.py"
    path.write_text(PROGRAM)
    spec = importlib.util.spec_from_file_location("outlined", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_a_global_bound_in_another_function_is_seen(tmp_path):
    module, _ = _load(tmp_path)
    module.setup(3)
    x = np.arange(4.0)
    assert float(astjax.jit(module.uses_global)(x)) == pytest.approx(np.sum(x) * 6.0)
    np.testing.assert_allclose(astjax.jit(module.long_helper)(x), (x + 1.0) * 2.0)


def test_errors_point_at_the_users_line_and_column(tmp_path):
    module, path = _load(tmp_path)
    with pytest.raises(AstjaxError) as caught:
        astjax.jit(module.broken)(np.arange(3.0))
    line = PROGRAM.splitlines().index("    return jnp.sum(x) + undefined_name") + 1
    loc = caught.value.loc
    assert (loc.file, loc.line, loc.col) == (str(path), line, len("    return jnp.sum(x) + "))


def test_left_out_definitions_keep_only_the_names_they_bind():
    text = textwrap.dedent('''
        import functools


        # a comment above
        @functools.lru_cache(maxsize=None)
        def cached(a, b=1,
                   *rest, key=None):
            return a


        @(deco := functools.wraps)
        def odd(x):
            return x


        class Model:
            def method(self, x):
                return x

            async def later(self):
                return 1


        match functools.__name__:
            case "functools":
                def in_a_case(x):
                    return x
            case _:
                pass


        def kept(x):
            return cached(x) + Model().method(x)
    ''')
    outline = source._outline_of(text)
    line = text.splitlines().index("def kept(x):") + 1
    reduced = outline.text(outline.kept(line))
    module = cst.parse_module(reduced)
    defs = {}

    class Defs(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            defs[node.name.value] = node

    module.visit(Defs())
    assert set(defs) == {"cached", "odd", "method", "later", "in_a_case", "kept"}
    for name in ("cached", "method", "later", "in_a_case"):  # the name alone: no parameters, decorators
        assert not defs[name].params.params and not defs[name].decorators, name
    assert defs["later"].asynchronous is not None
    assert defs["odd"].decorators  # a decorator binding a name stays
    assert "# a comment above" not in reduced  # folded into the stand-in's string
    assert len(reduced.splitlines()) == len(text.splitlines())
    kept_source = "def kept(x):\n    return cached(x) + Model().method(x)"
    assert kept_source in reduced


def test_metadata_resolved_in_order_is_libcsts_own():
    """source.resolved runs each provider once, dependencies first, without libcst's empty
    batched walks: positions, contexts and scopes as libcst's resolve_many gives them."""
    from libcst.metadata import MetadataWrapper
    paths = sorted(glob.glob(os.path.join(REPO, "astjax", "frontend", "*.py")))[:6] + \
        [os.path.join(REPO, "tests", "corpus", name) for name in
         sorted(os.listdir(os.path.join(REPO, "tests", "corpus"))) if name.endswith(".py")][:4]
    for path in paths:
        module = cst.parse_module(open(path, encoding="utf-8").read())
        ours = source.resolved(MetadataWrapper(module, unsafe_skip_copy=True))
        theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve_many(source.PROVIDERS)
        for provider in (cst.metadata.PositionProvider, source.ContextProvider):
            assert dict(ours[provider]) == dict(theirs[provider]), (path, provider)
        scopes = source.BindingScopeProvider
        assert ours[scopes].keys() == theirs[scopes].keys(), path
        for node, scope in ours[scopes].items():  # (scopes are new objects each run)
            other = theirs[scopes][node]
            assert type(scope) is type(other) and \
                sorted(scope._assignments) == sorted(other._assignments), path
