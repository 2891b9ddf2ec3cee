"""Reference evaluators of XLA's math-library functions (Acos ... Atanh, Sinh, Erfc, Square,
Reciprocal, Conj, NextAfter).

The transcendental functions are NumPy's (SciPy's for erfc) evaluated in f64 / c128 and rounded
once to the result type. Square and Reciprocal are what XLA builds them from, x * x and 1 / x, so
they reuse Mul's and Div's evaluators (integer wrap-around and division by zero included).
NextAfter steps through the ordered set of the type's values, independent of bit patterns.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import ml_dtypes
import numpy as np
import scipy.special

from backend.reference import EvaluatorContext, binary, evaluator, implementation_defined
from backend.reference.allowed import Allowed, negative_zero, no_nan_encoding
from backend.reference.elementwise import in_wide_precision
from backend.reference.unary import float_outcomes

Array = np.ndarray

_TRANSCENDENTAL: dict[str, Callable[[Array], Array]] = {
    "Acos": np.arccos,
    "Asin": np.arcsin,
    "Atan": np.arctan,
    "Acosh": np.arccosh,
    "Asinh": np.arcsinh,
    "Atanh": np.arctanh,
    "Sinh": np.sinh,
    "Erfc": scipy.special.erfc,
}


def _wide_evaluator(fn: Callable[[Array], Array]) -> Callable[[Any, Array], Array]:
    def ev(ctx: EvaluatorContext, operand: Array) -> Array:
        return in_wide_precision(fn, ctx, operand)
    return ev


def _real_axis_cut(outside: Callable[[Array], Array]) -> Callable[[Array], Array]:
    """Complex elements on a branch cut along the real axis: imaginary part 0, real part ``outside`` the domain."""
    def cut(z: Array) -> Array:
        return (z.imag == 0) & outside(z.real.astype(np.float64))
    return cut


def _imaginary_axis_cut(z: Array) -> Array:
    """Complex elements on the cuts (-i inf, -i] and [i, i inf): real part 0, |imaginary part| > 1."""
    return (z.real == 0) & (np.abs(z.imag.astype(np.float64)) > 1)


def _plus_zero_imaginary(z: Array) -> Array:
    out = z.copy()
    out.imag = np.where(out.imag == 0, 0.0, out.imag)
    return out


def _plus_zero_real(z: Array) -> Array:
    out = z.copy()
    out.real = np.where(out.real == 0, 0.0, out.real)
    return out


#: op -> (the elements on its branch cuts, the operand moved to the side a +0 part selects)
_BRANCH_CUTS: dict[str, tuple[Callable[[Array], Array], Callable[[Array], Array]]] = {
    "Acos": (_real_axis_cut(lambda x: np.abs(x) > 1), _plus_zero_imaginary),
    "Asin": (_real_axis_cut(lambda x: np.abs(x) > 1), _plus_zero_imaginary),
    "Acosh": (_real_axis_cut(lambda x: x < 1), _plus_zero_imaginary),
    "Asinh": (_imaginary_axis_cut, _plus_zero_real),
    "Atan": (_imaginary_axis_cut, _plus_zero_real),
}


#: ops with real operands outside their domain that XLA accepts in f4e2m1fn, a type with no NaN
_NO_NAN_ENCODING = ("Acos", "Asin", "Acosh", "Atanh")


def _near_subnormal(operand: Array, result: Array) -> Array:
    """Nonzero results below 4x the smallest normal number of the type: XLA's formulas pass them through a
    subnormal intermediate (asin(x) = 2 atan2(x, 1 + sqrt(1 - x^2)) halves x), which the CPU flushes (f32, f64) or
    which underflows in the type itself (f16 and f8, which XLA's asin computes in: asin of the smallest f16
    subnormal is 0)."""
    if np.iscomplexobj(operand):
        return np.zeros(operand.shape, bool)
    with np.errstate(invalid="ignore"):
        magnitude = np.abs(result.astype(np.float64))
    return (magnitude > 0) & (magnitude < 4 * float(ml_dtypes.finfo(operand.dtype).tiny))


def _outcomes(name: str, fn: Callable[[Array], Array]) -> Callable[[Any, Array], dict[str, Allowed]]:
    """Subnormal flushing (also of intermediates: a zero of the result's sign where the result is
    near the subnormal range), non-finite complex operands, branch cuts, Asinh's constant-folded -0."""
    common = float_outcomes(name, fn)
    ev = _wide_evaluator(fn)

    def outcomes(ctx: EvaluatorContext, operand: Array) -> dict[str, Allowed]:
        out = common(ctx, operand)
        result = ev(ctx, operand)
        near = _near_subnormal(operand, result)
        if near.any():
            flush = out["subnormal_flush"]
            zero = np.copysign(0.0, result.astype(np.float64)).astype(result.dtype)
            out["subnormal_flush"] = Allowed(flush.mask | near, {"flush": np.where(near, zero, flush.outcomes["flush"])})
        if name in _BRANCH_CUTS and np.iscomplexobj(operand):
            on_cut, moved = _BRANCH_CUTS[name]
            out["branch_cut_sign"] = Allowed(on_cut(operand), {"plus_zero_side": ev(ctx, moved(operand))})
        if name in _NO_NAN_ENCODING and result.dtype == ml_dtypes.float4_e2m1fn:
            out["no_nan_encoding"] = no_nan_encoding(fn, operand)
        if name == "Asinh":
            out["constant_folded_zero_sign"] = Allowed(negative_zero(operand),
                                                       {"positive_zero": np.zeros(operand.shape, result.dtype)})
        return out
    return outcomes


for _name, _fn in _TRANSCENDENTAL.items():
    evaluator(_name)(_wide_evaluator(_fn))
    implementation_defined(_name)(_outcomes(_name, _fn))


# -- Square = x * x, Reciprocal = 1 / x -----------------------------------------------------------
@evaluator("Square")
def square(ctx: EvaluatorContext, operand: Array) -> Array:
    return binary.mul(ctx, operand, operand)


@implementation_defined("Square")
def square_outcomes(ctx: EvaluatorContext, operand: Array) -> dict[str, Allowed]:
    return binary.mul_outcomes(ctx, operand, operand)


def _one_like(operand: Array) -> Array:
    return np.ones(operand.shape, operand.dtype)


@evaluator("Reciprocal")
def reciprocal(ctx: EvaluatorContext, operand: Array) -> Array:
    return binary.div(ctx, _one_like(operand), operand)


@implementation_defined("Reciprocal")
def reciprocal_outcomes(ctx: EvaluatorContext, operand: Array) -> dict[str, Allowed]:
    """Div's outcomes for 1 / x; no broadcast divisor (1 * round(1 / y) is round(1 / y)), and no NaN to
    encode in f4e2m1fn (1 / x is NaN only for a NaN x, which f4e2m1fn cannot hold)."""
    table = binary.div_outcomes(ctx, _one_like(operand), operand)
    table.pop("broadcast_divisor_reciprocal", None)
    table.pop("no_nan_encoding", None)
    return table


# -- Conj ----------------------------------------------------------------------------------------
@evaluator("Conj")
def conj(ctx: EvaluatorContext, operand: Array) -> Array:
    """x - i y; a real x is the complex x - 0i (XLA builds Conj as Complex(Real(x), Neg(Imag(x))))."""
    out = np.empty(operand.shape, ctx.shape.numpy_dtype())
    out.real = np.real(operand)
    out.imag = -np.imag(operand) if np.iscomplexobj(operand) else np.full(operand.shape, -0.0)
    return out


# -- NextAfter -----------------------------------------------------------------------------------
@cache
def _ordered_values(dtype: np.dtype) -> np.ndarray:
    """Every non-NaN value of a type of at most 16 bits, ascending, +-0 counted once (as 0)."""
    width = dtype.itemsize * 8
    patterns = np.arange(1 << width, dtype=np.uint64).astype(np.dtype(f"uint{width}"))
    with np.errstate(invalid="ignore"):
        values = patterns.view(dtype).astype(np.float64)
    return np.unique(values[~np.isnan(values)])


def _step(x: Array, toward: Array) -> Array:
    """The neighbour of each finite-or-infinite x (x != toward, x != 0) in the direction of ``toward``."""
    if x.dtype.itemsize >= 4:
        return np.nextafter(x, toward.astype(x.dtype))
    values = _ordered_values(x.dtype)
    index = np.searchsorted(values, x.astype(np.float64))
    index = np.clip(np.where(toward.astype(np.float64) > x.astype(np.float64), index + 1, index - 1),
                    0, len(values) - 1)
    return np.copysign(values[index], x.astype(np.float64)).astype(x.dtype)  # a zero reached keeps x's sign


def _smallest_positive(dtype: np.dtype) -> float:
    return float(ml_dtypes.finfo(dtype).smallest_subnormal)


@evaluator("NextAfter")
def next_after(ctx: EvaluatorContext, from_: Array, to: Array) -> Array:
    """C's nextafter: ``to`` where from == to (so +-0 toward -+0 gives ``to``), NaN if either is NaN,
    the smallest subnormal signed like ``to`` from a zero, else the next value toward ``to``."""
    with np.errstate(all="ignore"):  # stepping the largest finite value toward inf overflows by design
        x, y = from_.astype(np.float64), to.astype(np.float64)
        nan = np.isnan(x) | np.isnan(y)
        equal = x == y
        from_zero = (x == 0) & ~equal
        safe_x = np.where(nan | equal | from_zero, 1.0, x).astype(from_.dtype)
        safe_y = np.where(nan | equal | from_zero, 2.0, y).astype(from_.dtype)
        stepped = _step(safe_x, safe_y).astype(np.float64)
        tiny = np.copysign(_smallest_positive(from_.dtype), y)
        out = np.where(nan, np.nan, np.where(equal, y, np.where(from_zero, tiny, stepped)))
    return out.astype(ctx.shape.numpy_dtype())
