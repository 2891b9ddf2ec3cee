"""Scatter through the Pallas scatter kernel (falls back to lax with a logged reason).

A recognised combiner (add, mul, min, max) or a "replace" computation of one operand calls
``pallas_kernels.scatter``; any other update computation, several operands, and Gather use the jax lowering.
"""

from __future__ import annotations

from typing import Any

from backend.jax_backend import LoweringContext
from backend.jax_backend.indexing import scatter as jax_scatter
from backend.jax_backend.indexing import scatter_arguments, scatter_combiner
from backend.pallas_backend import pallas_lowering


@pallas_lowering("Scatter")
def scatter(ctx: LoweringContext, operands: list[Any], scatter_indices: Any, updates: list[Any]) -> Any:
    combiner = scatter_combiner(ctx, operands[0].dtype) if len(operands) == 1 else None
    if combiner is None:
        return jax_scatter(ctx, operands, scatter_indices, updates)
    from pallas_kernels import scatter as kernel

    indices, dn = scatter_arguments(ctx, scatter_indices)
    return kernel(operands[0], indices, updates[0], dimension_numbers=dn, combiner=combiner,
                  indices_are_sorted=ctx.attr("indices_are_sorted"), unique_indices=ctx.attr("unique_indices"),
                  mode="drop")
