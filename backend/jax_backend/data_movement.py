"""jax lowerings of the data-movement ops: Reshape, Collapse, Transpose, Rev, ConcatInDim, Pad."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.rules.data_movement import reshape_sizes


@lowering("Reshape")
def reshape(ctx: LoweringContext, operand: Any) -> Any:
    permutation, _, _ = reshape_sizes(ctx)
    return lax.reshape(operand, ctx.shape.dimensions(), dimensions=permutation)


@lowering("Collapse")
def collapse(ctx: LoweringContext, operand: Any) -> Any:
    return lax.reshape(operand, ctx.shape.dimensions())


@lowering("Transpose")
def transpose(ctx: LoweringContext, operand: Any) -> Any:
    return lax.transpose(operand, tuple(ctx.attr("permutation")))


@lowering("Rev")
def rev(ctx: LoweringContext, operand: Any) -> Any:
    return lax.rev(operand, tuple(ctx.attr("dimensions")))


# XLA on the CPU aborts the process (ir_array.cc "bit_offset != nullptr") when it concatenates
# 2-bit arrays whose pieces start inside a byte, e.g. s2[2] ++ s2[3]: such operands are joined as
# 8-bit values, which hold every 2-bit value exactly, and converted back.
_CONCAT_CARRIER = {np.dtype(ml_dtypes.int2): jnp.int8, np.dtype(ml_dtypes.uint2): jnp.uint8}


@lowering("ConcatInDim")
def concat_in_dim(ctx: LoweringContext, operands: list[Any]) -> Any:
    dtype = np.dtype(operands[0].dtype)
    carrier = _CONCAT_CARRIER.get(dtype)
    if carrier is None:
        return lax.concatenate(list(operands), ctx.attr("dimension"))
    joined = lax.concatenate([lax.convert_element_type(x, carrier) for x in operands], ctx.attr("dimension"))
    return lax.convert_element_type(joined, dtype)


@lowering("Pad")
def pad(ctx: LoweringContext, operand: Any, padding_value: Any) -> Any:
    return lax.pad(operand, padding_value, ctx.attr("padding_config").triples())
