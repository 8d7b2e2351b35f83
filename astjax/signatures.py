"""Signatures for compiling ahead of time: dtypes and ranks of a function's arguments, with sizes
that are numbers or names (a name is a symbolic size, shared by every axis that uses it).

Two spellings, both read without running anything:
- jaxtyping annotations in the source: `x: Float32[Array, "batch 784"]`, `b: Float64[Array, ""]`,
  `n: int` (jaxtyping itself need not be installed);
- the command line: `--signature 'cross_entropy(f32[d], f32[], f32[n,d], f32[n])'`.
"""
import keyword
import re
from dataclasses import dataclass

import libcst as cst
import numpy as np
from libcst.helpers import get_full_name_for_node

from .config import default_dtype
from .errors import AstjaxError

SCALARS = ("float", "int", "bool")  # Python scalars: weakly typed, as at a jit call


class SignatureError(AstjaxError):
    """A signature that cannot be read."""


@dataclass(frozen=True)
class ArgSpec:
    name: str
    dtype: str          # a NumPy dtype name, or "float" / "int" / "bool" for a Python scalar
    dims: tuple = ()    # each an int or a size name

    def __str__(self) -> str:
        if self.dtype in SCALARS:
            return f"{self.name}: {self.dtype}"
        return f"{self.name}: {self.dtype}[{', '.join(map(str, self.dims))}]"


@dataclass(frozen=True)
class Signature:
    function: str
    args: tuple         # ArgSpec per positional parameter
    origin: str         # "annotations" or "--signature"

    def __str__(self) -> str:
        return f"{self.function}({', '.join(map(str, self.args))})"

    @property
    def size_names(self) -> list:
        seen = []
        for a in self.args:
            seen += [d for d in a.dims if isinstance(d, str) and d not in seen]
        return seen


# ---------------------------------------------------------------- --signature
_CODES = {"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16",
          "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
          "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
          "c64": "complex64", "c128": "complex128", "bool": "bool"}
_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\s*\((.*)\)\s*$", re.S)
_ARG = re.compile(r"^\s*([a-z0-9]+)\s*(?:\[(.*)\])?\s*$")


def parse_signature(text: str, params: list) -> Signature:
    """`name(f32[d], f32[], f32[n,d], f32[n])`; `params` are the function's parameter names."""
    call = _CALL.match(text)
    if call is None:
        raise SignatureError(f"cannot read the signature {text!r}",
                             hint="write it as name(f32[n, d], f32[], int)")
    name, body = call.groups()
    parts = [p for p in _split(body)] if body.strip() else []
    if len(parts) != len(params):
        raise SignatureError(f"the signature {text!r} gives {len(parts)} argument(s); "
                             f"{name} takes {len(params)} ({', '.join(params)})")
    return Signature(name, tuple(_arg(p, param, text) for p, param in zip(parts, params)),
                     "--signature")


def _split(body: str) -> list:
    parts, depth, current = [], 0, ""
    for c in body:
        depth += (c == "[") - (c == "]")
        if c == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += c
    return parts + [current]


def _arg(part: str, param: str, text: str) -> ArgSpec:
    match = _ARG.match(part)
    if match is None:
        raise SignatureError(f"cannot read {part.strip()!r} in the signature {text!r}",
                             hint="an argument is f32[n, d], f64[], i32[3] or float/int/bool")
    code, dims = match.groups()
    if code in SCALARS and dims is None:
        return ArgSpec(param, code)
    if code not in _CODES or dims is None:
        raise SignatureError(f"unknown array type {part.strip()!r} in the signature {text!r}",
                             hint=f"dtypes: {', '.join(_CODES)}; shapes in brackets")
    return ArgSpec(param, _CODES[code], _dims(dims.replace(",", " "), text))


def _dims(text: str, where: str) -> tuple:
    dims = []
    for token in text.split():
        if token.isdigit():
            dims.append(int(token))
        elif token.isidentifier() and not keyword.iskeyword(token):
            dims.append(token)
        else:
            raise SignatureError(f"size {token!r} in {where!r} is neither a number nor a name",
                                 hint="variadic sizes (`...`, `*batch`) are not supported")
    return tuple(dims)


# ---------------------------------------------------------------- jaxtyping annotations
_JAXTYPING = {"Float16": "float16", "Float32": "float32", "Float64": "float64",
              "BFloat16": "bfloat16", "Int8": "int8", "Int16": "int16", "Int32": "int32",
              "Int64": "int64", "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32",
              "UInt64": "uint64", "Complex64": "complex64", "Complex128": "complex128",
              "Bool": "bool"}
_DEFAULTED = {"Float": "float", "Int": "int", "UInt": "uint", "Complex": "complex"}


def from_annotations(node: cst.FunctionDef):
    """The signature written in the def's annotations; None when a parameter has none (the
    function then compiles at its first call). Raises SignatureError for one it cannot read."""
    params = list(node.params.posonly_params) + list(node.params.params)
    if not params or any(p.annotation is None for p in params) or node.params.star_arg \
            not in (cst.MaybeSentinel.DEFAULT, None) or node.params.kwonly_params:
        return None
    specs = []
    for p in params:
        spec = _annotated(p.name.value, p.annotation.annotation)
        if spec is None:
            return None
        specs.append(spec)
    return Signature(node.name.value, tuple(specs), "annotations")


def _annotated(name: str, annotation):
    if isinstance(annotation, cst.Name) and annotation.value in SCALARS:
        return ArgSpec(name, annotation.value)
    if not isinstance(annotation, cst.Subscript) or len(annotation.slice) != 2:
        return None
    kind = (get_full_name_for_node(annotation.value) or "").rsplit(".", 1)[-1]
    if kind in _JAXTYPING:
        dtype = _JAXTYPING[kind]
    elif kind in _DEFAULTED:
        dtype = default_dtype(_DEFAULTED[kind]).name
    else:
        return None
    shape = annotation.slice[1].slice
    if not isinstance(shape, cst.Index) or not isinstance(shape.value, cst.SimpleString):
        return None
    return ArgSpec(name, dtype, _dims(shape.value.evaluated_value, f"{name}: {kind}[...]"))


def dtype_of(spec: ArgSpec) -> np.dtype:
    return np.dtype(spec.dtype)
