"""Reference evaluators of the creation ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.errors import RuntimeSizeError
from backend.reference import EvaluatorContext, evaluator
from backend.reference.conversion import convert_array
from backend.runtime import creation as shared


@evaluator("Parameter")
def parameter(ctx: EvaluatorContext) -> Any:
    return shared.parameter(ctx)


@evaluator("Constant")
def constant(ctx: EvaluatorContext) -> Any:
    return ctx.attr("literal")


@evaluator("BroadcastInDim")
def broadcast_in_dim(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    """A dynamic output dimension takes the runtime size of the operand dimension mapped to it."""
    out = list(ctx.attr("out_dim_size"))
    placed = [1] * len(out)
    for i, d in enumerate(ctx.attr("broadcast_dimensions")):
        placed[d] = operand.shape[i]
        if ctx.shape.is_dynamic_dimension(d):
            out[d] = operand.shape[i]
        elif operand.shape[i] not in (1, out[d]):  # a dynamic dimension of bound 1 holding 0 elements
            raise RuntimeSizeError("BroadcastInDim", f"operand dimension {i} has runtime size {operand.shape[i]}, "
                                   f"which cannot broadcast to size {out[d]}", "operand")
    return np.broadcast_to(operand.reshape(placed), out).copy()


def _indices(ctx: EvaluatorContext) -> np.ndarray:
    """Iota's index along ``iota_dimension`` of every element (int64)."""
    shape = ctx.attr("shape")
    dims, dim = shape.dimensions(), ctx.attr("iota_dimension")
    placed = [1] * len(dims)
    placed[dim] = dims[dim]
    return np.broadcast_to(np.arange(dims[dim], dtype=np.int64).reshape(placed), dims)


@evaluator("Iota")
def iota(ctx: EvaluatorContext) -> np.ndarray:
    return convert_array(_indices(ctx).copy(), ctx.attr("shape").element_type())


@evaluator("Tuple")
def tuple_(ctx: EvaluatorContext, elements: list[Any]) -> tuple[Any, ...]:
    return shared.tuple_(ctx, elements)


@evaluator("GetTupleElement")
def get_tuple_element(ctx: EvaluatorContext, tuple_data: tuple[Any, ...]) -> Any:
    return shared.get_tuple_element(ctx, tuple_data)


@evaluator("Broadcast")
def broadcast(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    return np.broadcast_to(operand, tuple(ctx.attr("broadcast_sizes")) + operand.shape).copy()
