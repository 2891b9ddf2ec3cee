"""Reference evaluators of the comparison and selection ops: Compare and its named forms, Select, Clamp.

Comparisons widen their operands (floats to f64, complex to c128, integers to 64 bits) and compare
exactly. TOTALORDER comparisons compare integer keys built from each value's sign bit and
magnitude bits: -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN, NaNs ordered by payload.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from backend.hlo import etypes
from backend.hlo.attribute_types import ComparisonDirection, ComparisonType
from backend.hlo.etypes import PrimitiveType
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, any_zero, flush_subnormals
from backend.reference.elementwise import lexicographic_extremum, subnormal_mask, widen
from backend.rules.comparison import NAMED_COMPARISONS, effective_comparison_type

D = ComparisonDirection
_DIRECTION_FUNCTIONS: dict[ComparisonDirection, Callable[[Any, Any], Any]] = {
    D.EQ: np.equal, D.NE: np.not_equal, D.GE: np.greater_equal, D.GT: np.greater, D.LE: np.less_equal,
    D.LT: np.less,
}
#: Float types without a sign bit: their bit patterns order like unsigned integers.
_UNSIGNED_FLOATS = (PrimitiveType.F8E8M0FNU,)
#: Float types whose single NaN is the bit pattern of -0 (sign bit set, all other bits zero).
FNUZ_TYPES = (PrimitiveType.F8E4M3FNUZ, PrimitiveType.F8E5M2FNUZ, PrimitiveType.F8E4M3B11FNUZ)




def total_order_key(x: np.ndarray) -> np.ndarray:
    """int64 keys whose order is the total order of the float values in ``x``."""
    et = etypes.dtype_to_etype(x.dtype)
    n = etypes.bit_width(et)
    bits = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64) & np.uint64((1 << n) - 1)
    if et in _UNSIGNED_FLOATS:
        return bits.astype(np.int64)
    negative = (bits >> np.uint64(n - 1)) == 1
    magnitude = (bits & np.uint64((1 << (n - 1)) - 1)).astype(np.int64)
    key = np.where(negative, -magnitude - 1, magnitude)
    if n < 64:
        # NaNs go to the ends by their sign. IEEE NaNs are there already (largest exponent); this
        # moves the FNUZ NaN, whose pattern is that of -0, below every other value.
        nan = np.isnan(x.astype(np.float64))
        key = key + np.where(nan, np.where(negative, -(1 << n), 1 << n), 0)
    return key


def compare_values(lhs: np.ndarray, rhs: np.ndarray, direction: ComparisonDirection,
                   compare_type: ComparisonType | None) -> np.ndarray:
    """The element-wise comparison ``lhs direction rhs`` (same-shape operands) as a bool array."""
    ctype = effective_comparison_type(etypes.dtype_to_etype(lhs.dtype), compare_type)
    keys = total_order_key if ctype == ComparisonType.TOTALORDER else widen
    with np.errstate(invalid="ignore"):
        return np.asarray(_DIRECTION_FUNCTIONS[direction](keys(lhs), keys(rhs)), dtype=np.bool_)




def comparison_outcomes(lhs: np.ndarray, rhs: np.ndarray, direction: ComparisonDirection,
                        compare_type: ComparisonType | None) -> dict[str, Allowed]:
    """Subnormal operands of a FLOAT comparison: compared as values (IEEE) or as zeros (XLA on CPU)."""
    et = etypes.dtype_to_etype(lhs.dtype)
    if not etypes.is_float(et) or effective_comparison_type(et, compare_type) != ComparisonType.FLOAT:
        return {}
    as_zeros = compare_values(flush_subnormals(lhs), flush_subnormals(rhs), direction, compare_type)
    return {"subnormal_as_zero": Allowed(subnormal_mask(lhs, rhs), {"denormals_are_zero": as_zeros})}


@evaluator("Compare")
def compare(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return compare_values(lhs, rhs, ctx.attr("direction"), ctx.attr("compare_type"))


@implementation_defined("Compare")
def compare_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> dict[str, Allowed]:
    return comparison_outcomes(lhs, rhs, ctx.attr("direction"), ctx.attr("compare_type"))


def _register_named(op: str, direction: ComparisonDirection, compare_type: ComparisonType | None) -> None:
    def named(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        return compare_values(lhs, rhs, direction, compare_type)

    def outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> dict[str, Allowed]:
        return comparison_outcomes(lhs, rhs, direction, compare_type)

    named.__name__ = named.__qualname__ = op
    evaluator(op)(named)
    if compare_type != ComparisonType.TOTALORDER:  # the total order has no implementation-defined outcome
        implementation_defined(op)(outcomes)


for _op, (_direction, _ctype) in NAMED_COMPARISONS.items():
    _register_named(_op, _direction, _ctype)


@evaluator("Select")
def select(ctx: EvaluatorContext, pred: np.ndarray, on_true: np.ndarray, on_false: np.ndarray) -> np.ndarray:
    return np.where(pred, on_true, on_false).astype(ctx.shape.numpy_dtype())


def _float_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """max with NaN propagation and -0 < +0 (XLA's Max)."""
    out = np.where((b > a) | ((b == a) & np.signbit(a)), b, a)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out)


def _float_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """min with NaN propagation and -0 < +0 (XLA's Min)."""
    out = np.where((b < a) | ((b == a) & np.signbit(b)), b, a)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out)


@evaluator("Clamp")
def clamp(ctx: EvaluatorContext, min_: np.ndarray, operand: np.ndarray, max_: np.ndarray) -> np.ndarray:
    lo, x, hi = widen(min_), widen(operand), widen(max_)
    with np.errstate(invalid="ignore"):
        if etypes.is_complex(etypes.dtype_to_etype(operand.dtype)):  # min(max(lo, x), hi) in Max and Min's order
            out = lexicographic_extremum(lexicographic_extremum(lo, x, greater=True), hi, greater=False)
        elif etypes.is_float(etypes.dtype_to_etype(operand.dtype)):
            out = _float_min(_float_max(lo, x), hi)
        else:
            out = np.minimum(np.maximum(lo, x), hi)
    return np.asarray(out).astype(ctx.shape.numpy_dtype())


@implementation_defined("Clamp")
def clamp_outcomes(ctx: EvaluatorContext, min_: np.ndarray, operand: np.ndarray, max_: np.ndarray) -> dict[str,
                   Allowed]:
    """Float Clamp follows Max and Min: NaN propagated or ignored, -0/+0 ordered or either zero, subnormals
    compared as values or as zeros. (min > max is no choice: the document defines min(max(min, x), max).)"""
    if not etypes.is_float(etypes.dtype_to_etype(operand.dtype)):
        return {}
    lo, x, hi = np.broadcast_arrays(widen(min_), widen(operand), widen(max_))
    dtype = ctx.shape.numpy_dtype()
    zeros = [v == 0 for v in (lo, x, hi)]
    negative_zero = np.any([z & np.signbit(v) for z, v in zip(zeros, (lo, x, hi))], axis=0)
    positive_zero = np.any([z & ~np.signbit(v) for z, v in zip(zeros, (lo, x, hi))], axis=0)
    with np.errstate(invalid="ignore"):
        number = np.fmin(np.fmax(lo, x), hi).astype(dtype)
    as_zeros = clamp(ctx, *flush_subnormals([min_, operand, max_]))
    return {"nan": Allowed(np.any([np.isnan(v) for v in (lo, x, hi)], axis=0), {"number": number}),
            "signed_zero": Allowed(negative_zero & positive_zero, {"either_zero": any_zero}),
            "subnormal_as_zero": Allowed(subnormal_mask(min_, operand, max_), {"denormals_are_zero": as_zeros})}
