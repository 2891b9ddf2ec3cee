"""Reference evaluators of the data-movement ops: Reshape, Collapse, Transpose, Rev, ConcatInDim, Pad."""

from __future__ import annotations

import numpy as np

from backend.reference import EvaluatorContext, evaluator
from backend.rules.data_movement import reshape_sizes


@evaluator("Reshape")
def reshape(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    # Logical: the elements in row-major (index) order, whatever the layouts; transposed first when
    # the older form's dimensions give the order in which to read the operand's dimensions.
    permutation, _, _ = reshape_sizes(ctx)
    if permutation is not None:
        operand = np.transpose(operand, permutation)
    return np.reshape(operand, ctx.shape.dimensions()).copy()


@evaluator("Collapse")
def collapse(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    return np.reshape(operand, ctx.shape.dimensions()).copy()


@evaluator("Transpose")
def transpose(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    return np.transpose(operand, ctx.attr("permutation")).copy()


@evaluator("Rev")
def rev(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    reversed_dims = set(ctx.attr("dimensions"))
    return operand[tuple(slice(None, None, -1) if d in reversed_dims else slice(None)
                         for d in range(operand.ndim))].copy()


@evaluator("ConcatInDim")
def concat_in_dim(ctx: EvaluatorContext, operands: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(operands, axis=ctx.attr("dimension"))


@evaluator("Pad")
def pad(ctx: EvaluatorContext, operand: np.ndarray, padding_value: np.ndarray) -> np.ndarray:
    triples = ctx.attr("padding_config").triples()
    # Interior padding first: operand element i lands at i * (interior + 1).
    inner_dims = [n + max(n - 1, 0) * interior for n, (_, _, interior) in zip(operand.shape, triples)]
    inner = np.full(inner_dims, padding_value, dtype=operand.dtype)
    inner[tuple(slice(None, None, interior + 1) for _, _, interior in triples)] = operand
    # Then the edges: a positive edge adds padding, a negative one removes elements of `inner`.
    out = np.full(ctx.shape.dimensions(), padding_value, dtype=operand.dtype)
    src, dst = [], []
    for n, (low, high, _) in zip(inner_dims, triples):
        start, stop = max(0, -low), n - max(0, -high)
        length = max(0, stop - start)
        src.append(slice(start, start + length))
        dst.append(slice(max(0, low), max(0, low) + length))
    out[tuple(dst)] = inner[tuple(src)]
    return out
