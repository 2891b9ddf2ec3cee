"""jax lowerings of the control-flow ops (sub-computations are traced inline)."""

from __future__ import annotations

from typing import Any

from backend.jax_backend import lowering


@lowering("Call")
def call(ctx: Any, operands: list[Any]) -> Any:
    return ctx.call(ctx.attr("computation"), operands)
