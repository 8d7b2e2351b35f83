"""The `astjax` command line.

    astjax transform FILE... [-o DIR]     (also: python -m astjax transform ...)
    astjax run SCRIPT [ARGS...]           (runs a JAX program with `import jax` giving astjax)
    astjax describe [PRIMITIVE...]        (a primitive's row and where each of its rules lives)

`transform` never imports or runs its input. It parses each FILE with libcst, finds statically
the transformations the file asks for (`@jax.jit`, `@partial(jax.jit, static_argnums=...)`,
`g = jax.jit(jax.grad(f))`, ... named through the file's imports, astjax's or JAX's; see
`astjax.frontend.discover`) and writes DIR/<name>.py: the file's code with its JAX imports
pointed at astjax, each transformed function commented with where its transformation comes from,
under a header listing them all (see `astjax.transform_file`).

Limitation, stated plainly: without running the program, argument shapes and dtypes are unknown,
so the written modules do not contain compiled core form. They apply astjax's transformations
(the decorators and assignments the user wrote, now referring to astjax), and `astjax.jit`
compiles each function the first time it is called, exactly as for a program that imports
astjax itself; `astjax.show` prints the compiled form after that call. A transformation that
this version of astjax does not provide yet is reported as a warning, and the generated module
fails where it applies it.

Exit status: 0 when every module was written; 2 for a usage error (a missing or non-.py input,
an output that would overwrite an input, two inputs with the same name); 1 when an input cannot
be read or parsed, or an output cannot be written. Nothing is written unless every input parses.
Messages go to stderr as `file:line:col: message`, never as a traceback.
"""
import argparse
import ast
import os
import sys

import libcst as cst


class UsageError(Exception):
    """The command line asks for something impossible (exit status 2)."""


class Failure(Exception):
    """An input or output could not be handled (exit status 1)."""


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.handler(args)
    except UsageError as err:
        print(f"astjax {args.command}: error: {err}", file=sys.stderr)
        return 2
    except Failure as err:
        print(err, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    parser = argparse.ArgumentParser(
        prog="astjax", description="astjax: JAX's programming model by static source-to-source "
                                   "compilation.")
    parser.add_argument("--version", action="version", version=f"astjax {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    transform = commands.add_parser(
        "transform", help="write generated modules for Python files (without running them)",
        description="Parse each FILE (never importing or running it), find the transformations "
                    "it applies (jit, grad, value_and_grad, vmap, jacfwd, jacrev, hessian; from astjax "
                    "or jax) and write "
                    "DIR/<name>.py: the same program with its JAX imports pointing at astjax and "
                    "each transformation commented. A function with a signature (jaxtyping "
                    "annotations or --signature) is compiled ahead of time and written out; "
                    "the others compile at their first call.")
    transform.add_argument("files", nargs="+", metavar="FILE", help="Python source files (.py)")
    transform.add_argument("-o", "--output", default="astjax_out", metavar="DIR",
                           help="folder for the generated modules (default: %(default)s)")
    transform.add_argument("--force", action="store_true",
                           help="overwrite files in DIR even if astjax did not generate them")
    transform.add_argument("--signature", action="append", default=[], metavar="SIG",
                           help="compile a function ahead of time for these argument types, "
                                "e.g. 'loss(f32[d], f32[n, d])' (repeatable; jaxtyping "
                                "annotations in the source do the same)")
    transform.add_argument("--backend", choices=("numpy", "numba"), default="numpy",
                           help="what the functions compiled ahead of time are written as: "
                                "NumPy source, or @numba.njit(cache=True) kernels "
                                "(default: %(default)s)")
    transform.set_defaults(handler=run_transform)
    run = commands.add_parser(
        "run", help="run a JAX program on astjax (import jax gives astjax)",
        description="Run SCRIPT as __main__ with the import hook installed: `import jax` and "
                    "its submodules that astjax provides import astjax instead.")
    run.add_argument("script", metavar="SCRIPT", help="the Python program to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")
    run.set_defaults(handler=run_program)
    describe = commands.add_parser(
        "describe", help="where every rule of a primitive is defined",
        description="For each PRIMITIVE (all when none is named): its kind and, for every stage "
                    "(jvp, vjp, batch, each backend's lowerings), the file:line of its rule or "
                    "MISSING.")
    describe.add_argument("names", nargs="*", metavar="PRIMITIVE", help="e.g. scatter")
    describe.set_defaults(handler=run_describe)
    return parser


def run_describe(args) -> int:
    import importlib

    from . import backends
    from .core.primitives import PRIMITIVES, describe
    for name in backends.AVAILABLE:  # their tables; a backend that cannot load has none
        try:
            importlib.import_module(f"astjax.backends.{name}")
        except ImportError as err:
            print(f"(backend {name} not loaded: {err})", file=sys.stderr)
    names = args.names or sorted(PRIMITIVES)
    unknown = [n for n in names if n not in PRIMITIVES]
    if unknown:
        raise UsageError(f"no primitive named {', '.join(unknown)}")
    print("\n".join(describe(n) for n in names))
    return 0


def run_program(args) -> int:
    from .hook import run_script
    if not os.path.isfile(args.script):
        raise UsageError(f"{args.script}: no such file")
    run_script(args.script, args.args)
    return 0


GENERATED_MARK = "# Generated by `astjax transform`"


def run_transform(args) -> int:
    from .core.files import write_atomic
    jobs = plan_outputs(args.files, args.output)
    if not args.force:
        _refuse_to_overwrite([out for _, out in jobs])
    modules = generate_all(jobs, _signatures(args.signature), args.backend)
    for (_, out), code in zip(jobs, modules):
        try:
            write_atomic(out, code)  # with the permissions of any module (0666 less umask)
        except OSError as err:
            raise Failure(f"{out}: cannot write: {err.strerror or err}") from None
    print(f"wrote {len(jobs)} module(s) to {args.output}")
    return 0


def _refuse_to_overwrite(outputs: list) -> None:
    """An existing output that astjax did not generate is the user's: never overwritten
    without --force."""
    for out in outputs:
        if not os.path.exists(out):
            continue
        try:
            with open(out, "rb") as f:
                head = f.read(len(GENERATED_MARK))
        except OSError:
            head = b""
        if head != GENERATED_MARK.encode():
            raise UsageError(f"refusing to overwrite {out}: it was not generated by astjax "
                             "(move it, choose another folder with -o, or pass --force)")


def plan_outputs(files: list, folder: str) -> list:
    """`(input, output)` pairs: each input `path/name.py` goes to `folder/name.py`. Raises
    UsageError for a missing input, or an output that is an input or is written twice."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UsageError(f"-o {folder}: exists and is not a folder")
    inputs = {os.path.realpath(path) for path in files}
    jobs, seen = [], {}
    for path in files:
        _check_input(path)
        out = os.path.join(folder, os.path.basename(path))
        real = os.path.realpath(out)
        if real in inputs:
            raise UsageError(f"refusing to write {out}: it is an input file "
                             f"(choose another folder with -o)")
        if real in seen:
            raise UsageError(f"{seen[real]} and {path} would both be written to {out}")
        seen[real] = path
        jobs.append((path, out))
    return jobs


def _check_input(path: str) -> None:
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise UsageError(f"{path}: not a file")
    if not path.endswith(".py"):
        raise UsageError(f"{path}: expected a Python source file ending in .py")


def _signatures(texts: list) -> dict:
    """{function name: signature text} from the --signature options."""
    out = {}
    for text in texts:
        name = text.split("(", 1)[0].strip()
        if not name.isidentifier() or "(" not in text:
            raise UsageError(f"--signature {text!r}: write it as name(f32[n, d], f32[], ...)")
        out[name] = text
    return out


def generate_all(jobs: list, signatures: dict = None, backend: str = "numpy") -> list:
    """The generated code for each job; a Failure listing every input that does not parse."""
    from .transform_file import generate
    show_progress = len(jobs) > 1 and sys.stderr.isatty()
    codes, errors = [], []
    for i, (path, _) in enumerate(jobs, 1):
        if show_progress:
            print(f"[{i}/{len(jobs)}] {path}", file=sys.stderr)
        source = _read(path)
        try:
            generated = generate(source, path, signatures, backend)
        except cst.ParserSyntaxError as err:
            errors.append(_syntax_message(path, source, err))
            continue
        except (SyntaxError, UnicodeDecodeError) as err:  # not Python text: binary, bad encoding
            errors.append(f"{path}: not a Python source file astjax can read "
                          f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else err})")
            continue
        except RecursionError:
            errors.append(f"{path}: an expression nests too deeply for the parser "
                          "(split it into several statements)")
            continue
        for warning in generated.warnings:
            print(warning, file=sys.stderr)
        codes.append(generated.code)
    if errors:
        raise Failure("\n".join(errors + ["astjax transform: nothing written"]))
    return codes


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise Failure(f"{path}: cannot read: {err.strerror or err}") from None


def _syntax_message(path: str, source: bytes, err: cst.ParserSyntaxError) -> str:
    """`path:line:col: syntax error: message` and the line, with a caret under the column.
    libcst's parser may place the error a token late; Python's own parser (which compiles to
    a tree and runs nothing) names the spot and the cause more precisely, so it is preferred
    when it rejects the source too."""
    try:
        ast.parse(source, filename=path)
    except SyntaxError as py_err:
        if py_err.lineno:
            line = (py_err.text or "").splitlines()[0] if py_err.text else ""
            return _located(path, py_err.lineno, py_err.offset or 1, py_err.msg, line)
    except (ValueError, RecursionError):
        pass
    lines = source.decode("utf-8", "replace").splitlines()
    line = lines[err.editor_line - 1] if 0 < err.editor_line <= len(lines) else ""
    return _located(path, err.editor_line, err.editor_column, err.message, line)


def _located(path: str, line_no: int, col: int, message: str, line: str) -> str:
    text = f"{path}:{line_no}:{col}: syntax error: {message}"
    if line.strip():
        stripped = line.lstrip()
        caret = max(col - 1 - (len(line) - len(stripped)), 0)
        text += f"\n    {stripped}\n    {' ' * caret}^"
    return text


if __name__ == "__main__":
    sys.exit(main())
