"""Reference evaluators of Dot and DotGeneral: einsum in float64 / complex128 / int64."""

from __future__ import annotations

import string
from typing import Any

import numpy as np

from backend.api_types import DotDimensionNumbers
from backend.reference import evaluator
from backend.reference.elementwise import widen
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
def dot_general(ctx: Any, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return dot_general_einsum(lhs, rhs, ctx.attr("dimension_numbers"), ctx.shape.numpy_dtype())


@evaluator("Dot")
def dot(ctx: Any, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return dot_general_einsum(lhs, rhs, dot_dimension_numbers(lhs.ndim), ctx.shape.numpy_dtype())
