"""jax lowerings of the bounded-dynamic ops.

jax arrays have static sizes, so the jax backend runs only the static cases of these ops (its
``supports()`` refuses any computation holding a dynamic shape, naming the op): GetDimensionSize
of a static dimension is a constant, RemoveDynamicDimension of a static operand the operand
itself, and DynamicReshape with no dynamic result dimension a plain reshape.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from backend.errors import UnsupportedError
from backend.jax_backend import LoweringContext, lowering

_WHY = "jax.lax arrays have static sizes; bounded-dynamic shapes run on the reference backend"


def _require_static(ctx: LoweringContext) -> None:
    for shape in (*ctx.operand_shapes, ctx.shape):
        if not shape.is_static():
            raise UnsupportedError("jax", ctx.inst.opcode, f"{shape} has a dynamic dimension: {_WHY}")


@lowering("GetDimensionSize")
def get_dimension_size(ctx: LoweringContext, operand: Any) -> Any:
    _require_static(ctx)
    return jnp.asarray(operand.shape[ctx.attr("dimension")], jnp.int32)


@lowering("SetDimensionSize")
def set_dimension_size(ctx: LoweringContext, operand: Any, val: Any) -> Any:
    raise UnsupportedError("jax", "SetDimensionSize", f"its result {ctx.shape} is always dynamic: {_WHY}")


@lowering("RemoveDynamicDimension")
def remove_dynamic_dimension(ctx: LoweringContext, operand: Any) -> Any:
    _require_static(ctx)
    return operand


@lowering("DynamicReshape")
def dynamic_reshape(ctx: LoweringContext, operand: Any, dim_sizes: list[Any]) -> Any:
    _require_static(ctx)  # every result dimension static: the sizes are the bounds
    return jnp.reshape(operand, ctx.shape.dimensions())
