"""Reference evaluators of the control-flow ops."""

from __future__ import annotations

from typing import Any

from backend.reference import evaluator


@evaluator("Call")
def call(ctx: Any, operands: list[Any]) -> Any:
    return ctx.call(ctx.attr("computation"), operands)
