"""jax lowerings of the element-wise ops."""

from __future__ import annotations

from typing import Any

from jax import lax

from backend.jax_backend import lowering


@lowering("Abs")
def abs_(ctx: Any, operand: Any) -> Any:
    return lax.abs(operand)


@lowering("Add")
def add(ctx: Any, lhs: Any, rhs: Any) -> Any:
    if lhs.dtype == bool:
        return lax.bitwise_or(lhs, rhs)
    return lax.add(lhs, rhs)
