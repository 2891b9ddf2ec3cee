"""Reference evaluators of Dot and DotGeneral: einsum in float64 / complex128 / int64."""

from __future__ import annotations

import string
from typing import Any

import ml_dtypes
import numpy as np

from backend import etypes
from backend.api_types import DotDimensionNumbers
from backend.reference import evaluator, implementation_defined
from backend.reference.elementwise import subnormal_mask, widen
from backend.rules.linear_algebra import dot_dimension_numbers


def dot_general_einsum(lhs: np.ndarray, rhs: np.ndarray, dn: DotDimensionNumbers, out_dtype: np.dtype) -> np.ndarray:
    """The exact (wide) DotGeneral of ``lhs`` and ``rhs``, rounded once to ``out_dtype``."""
    with np.errstate(all="ignore"):
        return np.asarray(_einsum(widen(lhs), widen(rhs), dn)).astype(out_dtype)


def _einsum(a: np.ndarray, b: np.ndarray, dn: DotDimensionNumbers) -> np.ndarray:
    letters = iter(string.ascii_letters)
    lhs_sub = [next(letters) for _ in range(a.ndim)]
    rhs_sub = [next(letters) for _ in range(b.ndim)]
    for l_dim, r_dim in zip(dn.lhs_contracting_dimensions + dn.lhs_batch_dimensions,
                            dn.rhs_contracting_dimensions + dn.rhs_batch_dimensions):
        rhs_sub[r_dim] = lhs_sub[l_dim]
    out = [lhs_sub[d] for d in dn.lhs_batch_dimensions]
    out += [s for d, s in enumerate(lhs_sub) if d not in dn.lhs_contracting_dimensions + dn.lhs_batch_dimensions]
    out += [s for d, s in enumerate(rhs_sub) if d not in dn.rhs_contracting_dimensions + dn.rhs_batch_dimensions]
    if a.dtype != b.dtype:
        common = np.promote_types(a.dtype, b.dtype)
        a, b = a.astype(common), b.astype(common)
    with np.errstate(all="ignore"):
        return np.einsum(f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out)}", a, b)


@evaluator("DotGeneral")
def dot_general(ctx: Any, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return dot_general_einsum(lhs, rhs, ctx.attr("dimension_numbers"), ctx.shape.numpy_dtype())


@evaluator("Dot")
def dot(ctx: Any, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return dot_general_einsum(lhs, rhs, dot_dimension_numbers(lhs.ndim), ctx.shape.numpy_dtype())


def _dimension_numbers(ctx: Any, lhs: np.ndarray) -> DotDimensionNumbers:
    return ctx.attr("dimension_numbers") if ctx.inst.opcode == "DotGeneral" else dot_dimension_numbers(lhs.ndim)


@implementation_defined("Dot", "DotGeneral")
def dot_masks(ctx: Any, lhs: np.ndarray, rhs: np.ndarray) -> dict[str, np.ndarray]:
    """``accumulation_overflow``: float results whose sum of |products| exceeds the result type, so that
    a product or partial sum in that type can overflow (the reference sums exactly, in f64);
    ``subnormals``: results where a subnormal operand element (XLA flushes it to 0) meets an inf or NaN
    (inf x 0 = NaN), or that are subnormal themselves;
    ``complex_non_finite``: complex results whose contraction meets an inf or NaN part (found by the fuzzer)."""
    et = ctx.shape.element_type()
    if not (etypes.is_float(et) or etypes.is_complex(et)):
        return {}
    dn = _dimension_numbers(ctx, lhs)
    a, b = widen(lhs), widen(rhs)
    finite_a, finite_b = np.isfinite(a), np.isfinite(b)
    magnitudes = _einsum(np.where(finite_a, np.abs(a), 0.0), np.where(finite_b, np.abs(b), 0.0), dn)
    top = float(ml_dtypes.finfo(etypes.etype_to_dtype(et)).max)
    masks = {"accumulation_overflow": magnitudes > top}
    sub_a, sub_b = subnormal_mask(lhs).astype(np.float64), subnormal_mask(rhs).astype(np.float64)
    exact = _einsum(a, b, dn)
    masks["subnormals"] = (_einsum(sub_a, (~finite_b).astype(np.float64), dn)
                           + _einsum((~finite_a).astype(np.float64), sub_b, dn) > 0) | \
        subnormal_mask(np.asarray(exact).astype(etypes.etype_to_dtype(et)))
    if etypes.is_complex(et):
        meets = _einsum((~finite_a).astype(np.float64), np.ones(b.shape), dn) + \
            _einsum(np.ones(a.shape), (~finite_b).astype(np.float64), dn)
        masks["complex_non_finite"] = meets > 0
    return masks
