"""Reference evaluators of Slice, SliceInDim, DynamicSlice and DynamicUpdateSlice (NumPy indexing).

Dynamic start indices are read as exact Python integers (any integer type, unsigned values of
any size) and clamped to ``[0, operand.dims[d] - slice_size[d]]`` before use, as the document says,
so a slice or an update always lies inside the operand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.reference import EvaluatorContext, evaluator
from backend.rules.slicing import slice_in_dim_bounds


def _strided(operand: np.ndarray, starts: Sequence[int], limits: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """operand[start:limit:stride, ...] as a new array (rank 0 included)."""
    index = tuple(slice(s, lim, st) for s, lim, st in zip(starts, limits, strides))
    return operand[(..., *index)].copy()


def clamped_starts(start_indices: Sequence[np.ndarray], operand_dims: Sequence[int],
                   sizes: Sequence[int]) -> list[int]:
    """start_indices[d] = clamp(start_indices[d], 0, operand.dims[d] - sizes[d]) for every dimension d."""
    return [min(max(int(s), 0), bound - size) for s, bound, size in zip(start_indices, operand_dims, sizes)]


def _window(starts: Sequence[int], sizes: Sequence[int]) -> tuple[Any, ...]:
    return (..., *(slice(s, s + n) for s, n in zip(starts, sizes)))


@evaluator("Slice")
def slice_op(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    strides = ctx.attr("strides") or (1,) * operand.ndim
    return _strided(operand, ctx.attr("start_indices"), ctx.attr("limit_indices"), strides)


@evaluator("SliceInDim")
def slice_in_dim(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    bounds = slice_in_dim_bounds(operand.shape, ctx.attr("start_index"), ctx.attr("limit_index"), ctx.attr("stride"),
                                 ctx.attr("dimno"))
    return _strided(operand, *bounds)


@evaluator("DynamicSlice")
def dynamic_slice(ctx: EvaluatorContext, operand: np.ndarray, start_indices: Sequence[np.ndarray]) -> np.ndarray:
    sizes = ctx.attr("slice_sizes")
    starts = clamped_starts(start_indices, operand.shape, sizes)
    return operand[_window(starts, sizes)].copy()


@evaluator("DynamicUpdateSlice")
def dynamic_update_slice(ctx: EvaluatorContext, operand: np.ndarray, update: np.ndarray,
                         start_indices: Sequence[np.ndarray]) -> np.ndarray:
    starts = clamped_starts(start_indices, operand.shape, update.shape)
    out = operand.copy()
    out[_window(starts, update.shape)] = update
    return out
