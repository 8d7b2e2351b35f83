"""Reading generated Numba modules in tests: their parallel loops as the emitter planned them."""
import ast
import re

LOOP_HEAD = re.compile(r"^    for (\w+) in range\(\1_start\w*, \1_stop\w*\):(.*)$")


def with_pranges(source: str) -> str:
    """The module with each `rt.parallel(loop, n, (args))` line written back as the loop it
    runs (`for i in numba.prange(n):` and the loop function's body, indexing by the loop's
    position itself) and the loop functions left out: the loop nests read as the emitter
    planned them, before outline.py moved them into functions."""
    lines = source.splitlines()
    loops, kept, k = {}, [], 0
    while k < len(lines):
        name = _loop_function(lines, k)
        if name is None:
            kept.append(lines[k])
            k += 1
            continue
        k += 2
        while not LOOP_HEAD.match(lines[k]):  # (the constants it computes again)
            k += 1
        var = LOOP_HEAD.match(lines[k]).group(1)
        body = []
        k += 1
        unsigned = re.match(rf"^        ({var}_at\w*) = np\.uintp\({var}\)", lines[k])
        if unsigned:  # (its indices read the loop's position unsigned: as the loop's own)
            k += 1
        while k < len(lines) and (lines[k].startswith("        ") or not lines[k].strip()):
            line = lines[k][8:]
            body.append(re.sub(rf"\b{unsigned.group(1)}\b", var, line) if unsigned else line)
            k += 1
        loops[name] = var, body
    out = []
    for line in kept:
        call = _parallel_call(line)
        if call is None:
            out.append(line)
            continue
        indent, name, count, comment = call
        var, body = loops[name]
        out.append(f"{indent}for {var} in numba.prange({count}):{comment}")
        out += [f"{indent}    {b}" if b.strip() else b for b in body]
    return "\n".join(out).rstrip() + "\n"


def _loop_function(lines, k):
    if lines[k] != "@numba.njit(error_model='numpy')" or k + 1 >= len(lines):
        return None
    found = re.match(r"def (\w+)\(", lines[k + 1])
    return found.group(1) if found else None


def _parallel_call(line):
    """(indent, loop function, count, comment) of an `rt.parallel` line, else None."""
    stripped = line.strip()
    if not stripped.startswith("rt.parallel("):
        return None
    code, _, comment = stripped.partition("  #")
    call = ast.parse(code).body[0].value
    count = ast.get_source_segment(code, call.args[1])
    return line[:len(line) - len(line.lstrip())], call.args[0].id, count, \
        ("  #" + comment if comment else "")
