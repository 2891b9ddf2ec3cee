"""jax lowerings of Slice, SliceInDim, DynamicSlice and DynamicUpdateSlice.

The dynamic ops pass their start indices to XLA untouched (``allow_negative_indices=False``:
jax would otherwise wrap negative indices Python-style), so XLA clamps them as documented.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.jax_backend import lowering


@lowering("Slice")
def slice_op(ctx: Any, operand: Any) -> Any:
    return lax.slice(operand, ctx.attr("start_indices"), ctx.attr("limit_indices"), ctx.attr("strides"))


@lowering("SliceInDim")
def slice_in_dim(ctx: Any, operand: Any) -> Any:
    return lax.slice_in_dim(operand, ctx.attr("start_index"), ctx.attr("limit_index"), ctx.attr("stride"),
                            ctx.attr("dimno"))


def _indices(start_indices: Sequence[Any]) -> list[Any]:
    return [jnp.asarray(i) for i in start_indices]


@lowering("DynamicSlice")
def dynamic_slice(ctx: Any, operand: Any, start_indices: Sequence[Any]) -> Any:
    return lax.dynamic_slice(operand, _indices(start_indices), ctx.attr("slice_sizes"), allow_negative_indices=False)


@lowering("DynamicUpdateSlice")
def dynamic_update_slice(ctx: Any, operand: Any, update: Any, start_indices: Sequence[Any]) -> Any:
    return lax.dynamic_update_slice(operand, update, _indices(start_indices), allow_negative_indices=False)
