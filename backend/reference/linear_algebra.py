"""Reference evaluators of Dot and DotGeneral: einsum in float64 / complex128 / int64."""

from __future__ import annotations

import string
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import etypes
from backend.hlo.attribute_types import DotDimensionNumbers
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, flushed, non_finite, non_finite_parts
from backend.reference.elementwise import subnormal_mask, widen
from backend.rules.linear_algebra import dot_dimension_numbers


def dot_general_einsum(lhs: np.ndarray, rhs: np.ndarray, dn: DotDimensionNumbers, out_dtype: np.dtype) -> np.ndarray:
    letters = iter(string.ascii_letters)
    lhs_sub = [next(letters) for _ in range(lhs.ndim)]
    rhs_sub = [next(letters) for _ in range(rhs.ndim)]
    for l_dim, r_dim in zip(dn.lhs_contracting_dimensions + dn.lhs_batch_dimensions,
                            dn.rhs_contracting_dimensions + dn.rhs_batch_dimensions):
        rhs_sub[r_dim] = lhs_sub[l_dim]
    out = [lhs_sub[d] for d in dn.lhs_batch_dimensions]
    out += [s for d, s in enumerate(lhs_sub) if d not in dn.lhs_contracting_dimensions + dn.lhs_batch_dimensions]
    out += [s for d, s in enumerate(rhs_sub) if d not in dn.rhs_contracting_dimensions + dn.rhs_batch_dimensions]
    a, b = widen(lhs), widen(rhs)
    if a.dtype != b.dtype:
        common = np.promote_types(a.dtype, b.dtype)
        a, b = a.astype(common), b.astype(common)
    with np.errstate(all="ignore"):
        result = np.einsum(f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out)}", a, b)
        return np.asarray(result).astype(out_dtype)


@evaluator("DotGeneral")
def dot_general(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return dot_general_einsum(lhs, rhs, ctx.attr("dimension_numbers"), ctx.shape.numpy_dtype())


@evaluator("Dot")
def dot(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return dot_general_einsum(lhs, rhs, dot_dimension_numbers(lhs.ndim), ctx.shape.numpy_dtype())


def finite_magnitude(x: np.ndarray) -> np.ndarray:
    """|x| in float64 (|re| + |im| for complex, which bounds every partial product), non-finite as 0."""
    with np.errstate(all="ignore"):
        wide = x.astype(np.complex128) if x.dtype.kind == "c" else x.astype(np.float64)
        mag = np.abs(wide.real) + np.abs(wide.imag) if x.dtype.kind == "c" else np.abs(wide)
    return np.where(np.isfinite(mag), mag, 0.0)


def accumulation_may_overflow(magnitude_sum: np.ndarray, result_dtype: np.dtype) -> np.ndarray:
    """Where a sum of products whose magnitudes sum to ``magnitude_sum`` may overflow the result
    type in some order of accumulation (with a margin for rounding of the partial sums)."""
    real = np.dtype(np.float32 if result_dtype == np.complex64 else np.float64) if result_dtype.kind == "c" \
        else result_dtype
    return magnitude_sum > float(ml_dtypes.finfo(real).max) * (1 - 2.0 ** -10)


def rounded_accumulation(magnitude_sum: np.ndarray, count: int, result_dtype: np.dtype) -> Allowed | None:
    """``accumulation_rounding``: for a real result type narrower than f32, every element may be the sum of its
    ``count`` products accumulated in the result type: within ``((1 + u)^(count + 1) - 1) * magnitude_sum`` (the
    recursive-summation bound, the products' rounding included; u the type's unit roundoff) plus an ulp of the
    exact result, and finite where that is. None for other types."""
    if result_dtype.kind == "c" or etypes.bit_width(etypes.dtype_to_etype(result_dtype)) >= 32:
        return None
    info = ml_dtypes.finfo(result_dtype)
    u = float(info.eps) / 2
    with np.errstate(over="ignore"):
        bound = np.expm1((count + 1) * np.log1p(u)) * magnitude_sum

    def within(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            a, e = np.asarray(actual).astype(np.float64), np.asarray(expected).astype(np.float64)
            ulp = np.maximum(np.abs(e), float(info.smallest_normal)) * float(info.eps)
            return np.isfinite(a) & (np.abs(a - e) <= bound + ulp)
    return Allowed(np.ones(np.shape(magnitude_sum), bool), {"result_type": within})


def is_inexact(dtype: np.dtype) -> bool:
    et = etypes.dtype_to_etype(dtype)
    return etypes.is_float(et) or etypes.is_complex(et)


@implementation_defined("Dot", "DotGeneral")
def dot_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> dict[str, Allowed]:
    """``accumulation_overflow``: float results where a product or a partial sum can leave the
    result type's range although the exact sum may not (XLA accumulates in the result type);
    ``subnormals``: results where a subnormal operand element (XLA on CPU flushes it to 0) meets an
    inf or NaN (inf x 0 = NaN), or that are subnormal themselves, IEEE or the flushed contraction;
    ``complex_non_finite``: complex results whose contraction meets an inf or NaN part, the
    reference's parts or another formula's (these two found by the fuzzer)."""
    out = ctx.shape.numpy_dtype()
    if not is_inexact(out):
        return {}
    dn = ctx.attr("dimension_numbers") if ctx.attrs.get("dimension_numbers") is not None \
        else dot_dimension_numbers(lhs.ndim)
    bound = dot_general_einsum(finite_magnitude(lhs), finite_magnitude(rhs), dn, np.dtype(np.float64))
    table = {"accumulation_overflow": Allowed(accumulation_may_overflow(bound, out), {"non_finite": non_finite})}
    rounding = rounded_accumulation(bound, int(np.prod([lhs.shape[d] for d in dn.lhs_contracting_dimensions])), out)
    if rounding is not None:
        table["accumulation_rounding"] = rounding

    def meets(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return dot_general_einsum(x.astype(np.float64), y.astype(np.float64), dn, np.dtype(np.float64)) > 0

    def contract(_: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return dot_general_einsum(x, y, dn, out)

    with np.errstate(all="ignore"):
        non_finite_lhs, non_finite_rhs = ~np.isfinite(lhs), ~np.isfinite(rhs)
        subnormal = meets(subnormal_mask(lhs), non_finite_rhs) | meets(non_finite_lhs, subnormal_mask(rhs)) \
            | subnormal_mask(dot_general_einsum(lhs, rhs, dn, out))
        table["subnormals"] = Allowed(subnormal, {"flush": flushed(contract, ctx, lhs, rhs)})
        if out.kind == "c":
            table["complex_non_finite"] = Allowed(meets(non_finite_lhs, np.ones(rhs.shape)) |
                                                  meets(np.ones(lhs.shape), non_finite_rhs),
                                                  {"other_formula": non_finite_parts})
    return table
