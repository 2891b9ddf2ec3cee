"""jax lowerings of the creation ops."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.jax_backend import lowering


@lowering("Parameter")
def parameter(ctx: Any) -> Any:
    return ctx.arguments[ctx.attr("number")]


@lowering("Constant")
def constant(ctx: Any) -> Any:
    value = ctx.attr("literal")
    if isinstance(value, tuple):
        return tuple(jnp.asarray(v) for v in value)
    return jnp.asarray(value)


@lowering("BroadcastInDim")
def broadcast_in_dim(ctx: Any, operand: Any) -> Any:
    return lax.broadcast_in_dim(operand, tuple(ctx.attr("out_dim_size")), tuple(ctx.attr("broadcast_dimensions")))
