"""jax lowerings of the creation ops."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.runtime import creation as shared


@lowering("Parameter")
def parameter(ctx: LoweringContext) -> Any:
    return shared.parameter(ctx)


@lowering("Constant")
def constant(ctx: LoweringContext) -> Any:
    return _constant_value(ctx.attr("literal"))


def _constant_value(value: Any) -> Any:
    """A literal as jax values: a tuple element by element, nested tuples too."""
    if isinstance(value, tuple):
        return tuple(_constant_value(v) for v in value)
    return jnp.asarray(value)


@lowering("BroadcastInDim")
def broadcast_in_dim(ctx: LoweringContext, operand: Any) -> Any:
    return lax.broadcast_in_dim(operand, tuple(ctx.attr("out_dim_size")), tuple(ctx.attr("broadcast_dimensions")))


@lowering("Iota")
def iota(ctx: LoweringContext) -> Any:
    shape = ctx.attr("shape")
    return lax.broadcasted_iota(shape.numpy_dtype(), shape.dimensions(), ctx.attr("iota_dimension"))


@lowering("Tuple")
def tuple_(ctx: LoweringContext, elements: list[Any]) -> Any:
    return shared.tuple_(ctx, elements)


@lowering("GetTupleElement")
def get_tuple_element(ctx: LoweringContext, tuple_data: Any) -> Any:
    return shared.get_tuple_element(ctx, tuple_data)


@lowering("Broadcast")
def broadcast(ctx: LoweringContext, operand: Any) -> Any:
    return lax.broadcast(operand, tuple(ctx.attr("broadcast_sizes")))
