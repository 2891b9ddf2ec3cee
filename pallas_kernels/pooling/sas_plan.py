"""Deciding whether a ``select_and_scatter_add`` call runs the kernels."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from pallas_kernels.pooling.geometry import WindowGeometry, make_geometry
from pallas_kernels.pooling.plan import (
    FLOAT_DTYPES,
    INT_DTYPES,
    accumulator_dtype,
    check_geometry,
    normalize_padding,
)
from pallas_kernels.toolkit.decisions import KernelDecision

OP_NAME = "select_and_scatter_add"

SELECT_PRIMITIVES = {"ge": jax.lax.ge_p, "le": jax.lax.le_p}
_SELECT_CALLABLES = [(jax.lax.ge, "ge"), (jax.lax.le, "le"), (jax.lax.ge_p, "ge"),
                     (jax.lax.le_p, "le")]


def select_name(select: Any) -> str | None:
    """"ge" (first maximum) or "le" (first minimum); None if not recognised."""
    if isinstance(select, str):
        return select.lower() if select.lower() in SELECT_PRIMITIVES else None
    for candidate, name in _SELECT_CALLABLES:
        if select is candidate:
            return name
    return None


@dataclasses.dataclass(frozen=True)
class SelectAndScatterPlan:
    select: str
    operand_dtype: np.dtype
    compare_dtype: np.dtype  # operand values are compared in this type
    source_dtype: np.dtype
    accumulator_dtype: np.dtype  # source values are summed in this type
    geometry: WindowGeometry


def _fallback(reason: str) -> KernelDecision:
    return KernelDecision.fallback(OP_NAME, reason)


def plan_select_and_scatter_add(
    source: Any,
    operand: Any,
    select: Any = "ge",
    window_dimensions: Sequence[int] = (),
    window_strides: Sequence[int] | None = None,
    padding: Any = "VALID",
) -> KernelDecision:
    """The kernel plan for XLA SelectAndScatter (scatter = add) or a reason."""
    name = select_name(select)
    if name is None:
        return _fallback(f"select {select!r} is not 'ge' or 'le'")
    supported = FLOAT_DTYPES + INT_DTYPES
    operand_dtype, source_dtype = np.dtype(operand.dtype), np.dtype(source.dtype)
    for role, dtype in (("operand", operand_dtype), ("source", source_dtype)):
        if dtype.name not in supported:
            return _fallback(f"{role} dtype {dtype.name} is not supported "
                             f"(kernel covers {', '.join(supported)})")
    shape = tuple(np.shape(operand))
    rank = len(shape)
    windows = tuple(int(w) for w in window_dimensions)
    strides = (1,) * rank if window_strides is None else tuple(int(s) for s in window_strides)
    try:
        pads = normalize_padding(shape, windows, strides, padding, (1,) * rank)
    except (TypeError, ValueError) as error:
        return _fallback(f"invalid padding {padding!r}: {error}")
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        return _fallback("negative padding is not supported")
    geometry = make_geometry(shape, windows, strides, pads, (1,) * rank, (1,) * rank)
    reason = check_geometry(geometry)
    if reason:
        return _fallback(reason)
    if tuple(np.shape(source)) != geometry.out_shape:
        return _fallback(f"invalid call: source shape {tuple(np.shape(source))} is not "
                         f"the window output shape {geometry.out_shape}")
    return KernelDecision.kernel(OP_NAME, SelectAndScatterPlan(
        select=name, operand_dtype=operand_dtype,
        compare_dtype=accumulator_dtype(operand_dtype), source_dtype=source_dtype,
        accumulator_dtype=accumulator_dtype(source_dtype), geometry=geometry))
