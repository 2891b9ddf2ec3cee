"""Reference evaluators of the creation ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.reference import evaluator


@evaluator("Parameter")
def parameter(ctx: Any) -> Any:
    return ctx.arguments[ctx.attr("number")]


@evaluator("Constant")
def constant(ctx: Any) -> Any:
    return ctx.attr("literal")


@evaluator("BroadcastInDim")
def broadcast_in_dim(ctx: Any, operand: np.ndarray) -> np.ndarray:
    out = ctx.attr("out_dim_size")
    placed = [1] * len(out)
    for i, d in enumerate(ctx.attr("broadcast_dimensions")):
        placed[d] = operand.shape[i]
    return np.broadcast_to(operand.reshape(placed), out).copy()
