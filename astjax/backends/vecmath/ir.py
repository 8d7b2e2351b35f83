"""A tiny LLVM IR emitter used by :mod:`vecmath` to write scalar math that vectorises.

Why emit IR instead of writing the math as ``@njit`` Python:

* every op lands directly in the caller's function (no inlining to hope for);
* integer steps stay in the float's width (i32 for float32): Numba would widen them to i64;
* only ``select`` is emitted for case analysis, never a branch;
* float ops carry the ``contract`` flag and nothing else.  Numba's fastmath pass only adds
  its flags to float instructions that have none, so a ``fastmath=True`` caller does not
  turn on ``nnan``/``ninf``/``reassoc`` inside these functions (which would delete the
  inf/nan handling and regroup the 2**n scaling of exp).

``V`` wraps an ``llvmlite`` value; arithmetic on ``V`` emits instructions.  Python numbers
mixed into an expression become constants of the *other operand's* type, so one source
text serves float32 and float64 without promoting either, and scalars and vectors alike
(the vector versions in vecmath_variants are emitted from the same code).
"""

import numpy as np
from llvmlite import ir

_FLAGS = ("contract",)
F32, F64 = ir.FloatType(), ir.DoubleType()
I1, I32, I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)


def _flag(instr):
    instr.flags.append(_FLAGS[0])
    return instr


def _scalar_const(c, ty):
    if ty == F32:
        return ir.Constant(F32, float(np.float32(c)))
    if ty == F64:
        return ir.Constant(F64, float(c))
    if ty == I1:
        return ir.Constant(I1, int(bool(c)))
    return ir.Constant(ty, int(c))


class V:
    """An SSA value plus the builder that made it.  Kinds: float, int (same width), bool."""

    __slots__ = ("b", "v")

    def __init__(self, builder, value):
        self.b, self.v = builder, value

    # -- type facts (a V may be a scalar or a vector of lanes) -------------------------------
    @property
    def ty(self):
        return self.v.type

    @property
    def elem(self):
        """The lane type: the type itself for scalars."""
        return self.ty.element if isinstance(self.ty, ir.VectorType) else self.ty

    def shaped(self, ty):
        """Scalar type ``ty`` with this value's lane count (vectors stay vectors)."""
        if isinstance(self.ty, ir.VectorType) and not isinstance(ty, ir.VectorType):
            return ir.VectorType(ty, self.ty.count)
        return ty

    @property
    def is_float(self):
        return isinstance(self.elem, (ir.FloatType, ir.DoubleType))

    @property
    def is32(self):
        """True for float32/int32 values: selects the single-precision constants."""
        return self.elem in (F32, I32)

    @property
    def ity(self):
        return self.shaped(I32 if self.is32 else I64)

    @property
    def fty(self):
        return self.shaped(F32 if self.is32 else F64)

    # -- constants ---------------------------------------------------------------------
    def const(self, c, ty=None):
        """Constant c of type ty (default: this value's); splat over the lanes of a vector."""
        ty = self.shaped(ty or self.ty)
        if isinstance(c, V):
            return c
        if isinstance(ty, ir.VectorType):
            return V(self.b, ir.Constant(ty, [_scalar_const(c, ty.element)] * ty.count))
        return V(self.b, _scalar_const(c, ty))

    def f(self, c):
        """Float constant of this value's precision."""
        return self.const(c, self.fty)

    def i(self, c):
        """Integer constant of this value's width."""
        return self.const(c, self.ity)

    def _c(self, o):
        return o if isinstance(o, V) else self.const(o)

    # -- arithmetic ----------------------------------------------------------------------
    def _bin(self, o, fop, iop, swap=False):
        a, c = self, self._c(o)
        if swap:
            a, c = c, a
        if self.is_float:
            return V(self.b, _flag(getattr(self.b, fop)(a.v, c.v)))
        return V(self.b, getattr(self.b, iop)(a.v, c.v))

    def __add__(self, o): return self._bin(o, "fadd", "add")
    def __radd__(self, o): return self._bin(o, "fadd", "add", True)
    def __sub__(self, o): return self._bin(o, "fsub", "sub")
    def __rsub__(self, o): return self._bin(o, "fsub", "sub", True)
    def __mul__(self, o): return self._bin(o, "fmul", "mul")
    def __rmul__(self, o): return self._bin(o, "fmul", "mul", True)
    def __truediv__(self, o): return self._bin(o, "fdiv", "sdiv")
    def __rtruediv__(self, o): return self._bin(o, "fdiv", "sdiv", True)

    def __neg__(self):
        if self.is_float:
            return V(self.b, _flag(self.b.fneg(self.v)))
        return V(self.b, self.b.neg(self.v))

    # integer / bool bit ops
    def __and__(self, o): return V(self.b, self.b.and_(self.v, self._c(o).v))
    def __or__(self, o): return V(self.b, self.b.or_(self.v, self._c(o).v))
    def __xor__(self, o): return V(self.b, self.b.xor(self.v, self._c(o).v))
    def __invert__(self): return V(self.b, self.b.not_(self.v))
    def __lshift__(self, o): return V(self.b, self.b.shl(self.v, self._c(o).v))
    def __rshift__(self, o): return V(self.b, self.b.ashr(self.v, self._c(o).v))

    def lshr(self, o):
        return V(self.b, self.b.lshr(self.v, self._c(o).v))

    # comparisons: ordered for floats (false on nan), signed for ints
    def _cmp(self, op, o):
        o = self._c(o)
        if self.is_float:
            return V(self.b, _flag(self.b.fcmp_ordered(op, self.v, o.v)))
        return V(self.b, self.b.icmp_signed(op, self.v, o.v))

    def __lt__(self, o): return self._cmp("<", o)
    def __le__(self, o): return self._cmp("<=", o)
    def __gt__(self, o): return self._cmp(">", o)
    def __ge__(self, o): return self._cmp(">=", o)
    def eq(self, o): return self._cmp("==", o)
    def ne(self, o): return self._cmp("!=", o)

    __hash__ = object.__hash__

    # -- conversions -----------------------------------------------------------------------
    def bits(self):
        """Reinterpret a float as the same-width integer."""
        return V(self.b, self.b.bitcast(self.v, self.ity))

    def as_float(self):
        """Reinterpret an integer as the same-width float."""
        return V(self.b, self.b.bitcast(self.v, self.fty))

    def to_int(self):
        """Float -> same-width signed int (truncation; caller keeps it in range)."""
        return V(self.b, self.b.fptosi(self.v, self.ity))

    def to_float(self):
        """Signed int -> same-width float."""
        return V(self.b, self.b.sitofp(self.v, self.fty))

    def to(self, ty):
        """Float precision change or integer width change (sign-extending)."""
        ty = self.shaped(ty)
        if self.ty == ty:
            return self
        if self.is_float:
            op = self.b.fpext if self.shaped(F64) == ty else self.b.fptrunc
        else:
            elem = ty.element if isinstance(ty, ir.VectorType) else ty
            op = self.b.sext if elem.width > self.elem.width else self.b.trunc
        return V(self.b, op(self.v, ty))


# ---------------------------------------------------------------------------------------
# LLVM intrinsics the loop vectoriser knows how to widen.
def _suffix(ty):
    """LLVM's overload suffix: f32, f64, i64, v16f32, v8i64, ..."""
    if isinstance(ty, ir.VectorType):
        return "v%d%s" % (ty.count, _suffix(ty.element))
    if ty == F32:
        return "f32"
    if ty == F64:
        return "f64"
    return "i%d" % ty.width


def _declare(mod, name, ret, args):
    fn = mod.globals.get(name)
    if fn is None:
        fn = ir.Function(mod, ir.FunctionType(ret, args), name)
    return fn


def _intr(name, x, *rest):
    b = x.b
    fn = _declare(b.module, "llvm.%s.%s" % (name, _suffix(x.ty)), x.ty, [x.ty] * (1 + len(rest)))
    return V(b, b.call(fn, [x.v] + [r.v for r in rest]))


def fshl(a, b, sh):
    """Funnel shift left of integer Vs: (a << sh) | (b >> (width - sh)), sh taken mod width."""
    bld = a.b
    fn = _declare(bld.module, "llvm.fshl.%s" % _suffix(a.ty), a.ty, [a.ty] * 3)
    return V(bld, bld.call(fn, [a.v, a._c(b).v, a._c(sh).v]))


def any_lane(m):
    """i1: is any lane of the vector mask m set?"""
    bld = m.b
    fn = _declare(bld.module, "llvm.vector.reduce.or.%s" % _suffix(m.ty), I1, [m.ty])
    return V(bld, bld.call(fn, [m.v]))


def fma(a, b, c):
    """a*b + c with one rounding (vfmadd)."""
    return _intr("fma", a, a._c(b), a._c(c))


def sqrt(x): return _intr("sqrt", x)
def floor(x): return _intr("floor", x)
def ceil(x): return _intr("ceil", x)
def trunc(x): return _intr("trunc", x)
def rint(x): return _intr("rint", x)   # round half to even in the default mode


# fabs/copysign as integer bit operations, not llvm.fabs/llvm.copysign calls: Numba's
# fastmath pass puts nnan/ninf on every float-returning *call*, which would make
# fabs(nan) poison and break the special-value selects built on it.  LLVM turns these
# bit patterns back into the same vandps/vpternlog instructions.
def _signmask(x):
    return x.i(-(1 << (31 if x.is32 else 63)))


def fabs(x):
    return (x.bits() & ~_signmask(x)).as_float()


def copysign(x, s):
    m = _signmask(x)
    return ((x.bits() & ~m) | (s.bits() & m)).as_float()


def select(m, a, c):
    """Lane-wise ``a if m else c``; constants take the type of the other arm."""
    if not isinstance(a, V):
        a = c.const(a)
    if not isinstance(c, V):
        c = a.const(c)
    return V(m.b, m.b.select(m.v, a.v, c.v))


def isnan(x):
    return V(x.b, _flag(x.b.fcmp_unordered("uno", x.v, x.v)))


def isinf(x):
    return fabs(x).eq(float("inf"))


def isfinite(x):
    return fabs(x) < float("inf")


def signbit(x):
    return x.bits() < 0


def poly(x, coeffs):
    """Horner with fma: coeffs[0] + x*(coeffs[1] + x*(...))."""
    acc = x.const(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = fma(acc, x, c)
    return acc


def estrin(x, coeffs):
    """The same polynomial as poly by Estrin's scheme: pairs c[2i] + c[2i+1]*x, then pairs of
    those with x**2, x**4, ...  The dependency chain grows with log2 of the degree instead
    of the degree: worth it where a long chain of dependent steps, not the count of
    instructions, bounds a loop (a high-degree polynomial between a division and an exp)."""
    terms = [x.const(c) for c in coeffs]
    power = x
    while len(terms) > 1:
        pairs = [fma(terms[i + 1], power, terms[i]) for i in range(0, len(terms) - 1, 2)]
        terms = pairs + terms[2 * len(pairs):]
        if len(terms) > 1:
            power = power * power
    return terms[0]


# ---------------------------------------------------------------------------------------
# Error-free transformations (exact with fma, no Dekker splitting that `contract` could undo)
def two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fast_two_sum(a, b):
    """Requires |a| >= |b| (or a == 0)."""
    s = a + b
    return s, b - (s - a)


def two_prod(a, b):
    p = a * b
    return p, fma(a, b, -p)


# ---------------------------------------------------------------------------------------
# Float format facts, by precision.
def fmt(x):
    """(mantissa bits, exponent bias, exponent mask) of x's float format."""
    return (23, 127, 0xFF) if x.is32 else (52, 1023, 0x7FF)


def pow2i(n):
    """2.0**n for an integer V n within the normal exponent range, built in the exponent field."""
    mb, bias, _ = fmt(n)
    return ((n + bias) << mb).as_float()


def global_table(builder, name, values, ty):
    """A module-level constant array (emitted once per LLVM module), returned as a pointer."""
    mod = builder.module
    g = mod.globals.get(name)
    if g is None:
        arrty = ir.ArrayType(ty, len(values))
        if ty in (F32, F64):
            init = [ir.Constant(ty, float(np.float32(v)) if ty == F32 else float(v))
                    for v in values]
        else:
            init = [ir.Constant(ty, int(v)) for v in values]
        g = ir.GlobalVariable(mod, arrty, name)
        g.global_constant = True
        g.linkage = "internal"
        g.initializer = ir.Constant(arrty, init)
    return g


def load_table(builder, table, idx):
    """table[idx] for an integer V idx (in a loop, vectorises to a gather; a vector idx
    loads lane by lane)."""
    zero = ir.Constant(I64, 0)
    i = idx.to(I64).v
    if not isinstance(i.type, ir.VectorType):
        return V(builder, builder.load(builder.gep(table, [zero, i], inbounds=True)))
    elem = table.type.pointee.element
    out = ir.Constant(ir.VectorType(elem, i.type.count), ir.Undefined)
    for lane in range(i.type.count):
        k = ir.Constant(I32, lane)
        ptr = builder.gep(table, [zero, builder.extract_element(i, k)], inbounds=True)
        out = builder.insert_element(out, builder.load(ptr), k)
    return V(builder, out)

