"""jax lowerings of Slice, SliceInDim, DynamicSlice and DynamicUpdateSlice.

The dynamic ops clamp their start indices themselves, in each index's own type, before handing
them to XLA (with ``allow_negative_indices=False``: jax would otherwise wrap negative indices
Python-style). XLA clamps too, but its constant folder reads a u64 start index >= 2^63 as
negative and clamps it to 0 where compiled code clamps it to the top: with indices already in
[0, dim - size], constant and parameter inputs agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from backend.jax_backend import LoweringContext, lowering


@lowering("Slice")
def slice_op(ctx: LoweringContext, operand: Any) -> Any:
    return lax.slice(operand, ctx.attr("start_indices"), ctx.attr("limit_indices"), ctx.attr("strides"))


@lowering("SliceInDim")
def slice_in_dim(ctx: LoweringContext, operand: Any) -> Any:
    return lax.slice_in_dim(operand, ctx.attr("start_index"), ctx.attr("limit_index"), ctx.attr("stride"),
                            ctx.attr("dimno"))


def _clamped(start_indices: Sequence[Any], operand_dims: Sequence[int], sizes: Sequence[int]) -> list[Any]:
    """clamp(start_indices[d], 0, operand.dims[d] - sizes[d]) in the index's own type."""
    out = []
    for index, dim, size in zip(start_indices, operand_dims, sizes):
        index = jnp.asarray(index)
        high = min(dim - size, int(ml_dtypes.iinfo(index.dtype).max))
        out.append(lax.clamp(np.array(0, index.dtype), index, np.array(high, index.dtype)))
    return out


@lowering("DynamicSlice")
def dynamic_slice(ctx: LoweringContext, operand: Any, start_indices: Sequence[Any]) -> Any:
    sizes = ctx.attr("slice_sizes")
    return lax.dynamic_slice(operand, _clamped(start_indices, operand.shape, sizes), sizes,
                             allow_negative_indices=False)


@lowering("DynamicUpdateSlice")
def dynamic_update_slice(ctx: LoweringContext, operand: Any, update: Any, start_indices: Sequence[Any]) -> Any:
    return lax.dynamic_update_slice(operand, update, _clamped(start_indices, operand.shape, update.shape),
                                    allow_negative_indices=False)
