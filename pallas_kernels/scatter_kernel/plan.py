"""Deciding whether a scatter runs the kernel, and how it is canonicalized.

Every operand dimension ``d`` is classified:

* a *row* dimension when its window start comes from the indices (it is in
  ``scatter_dims_to_operand_dims``), when it is an inserted or a batching
  dimension, or when the update window covers only part of it;
* a *column* dimension otherwise (start 0, the window spans all of it).

The operand is transposed to ``rows + columns`` and flattened to ``[V, D]``;
each update window becomes ``prod(row window sizes)`` *row updates* of width
``D`` whose destination row is the linearized window position.  An update whose
window would leave the operand (any row dimension out of ``[0, size - window]``)
gets a sentinel row and is skipped (``mode="drop"``, also XLA's behaviour for
``promise_in_bounds``); with ``mode="clip"`` the start is clamped instead, like
``lax``.
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from pallas_kernels.toolkit.decisions import KernelDecision

OP_NAME = "scatter"
COMBINERS = ("add", "mul", "min", "max", "replace")
SUPPORTED_DTYPES = ("bfloat16", "float16", "float32", "int32")
MAX_ROWS = 2**31 - 2  # row ids are int32; 2**31 - 1 is the "dropped" sentinel

_COMBINER_NAMES = {
    "add": "add", "sum": "add", "mul": "mul", "multiply": "mul", "prod": "mul",
    "min": "min", "minimum": "min", "max": "max", "maximum": "max",
    "replace": "replace", "set": "replace", "update": "replace",
}
_COMBINER_CALLABLES: dict[Any, str] = {
    jax.lax.add: "add", jnp.add: "add", operator.add: "add",
    jax.lax.mul: "mul", jnp.multiply: "mul", operator.mul: "mul",
    jax.lax.min: "min", jnp.minimum: "min",
    jax.lax.max: "max", jnp.maximum: "max",
}


@dataclasses.dataclass(frozen=True)
class RowDim:
    """A row dimension of the operand and where its window start comes from."""

    dim: int
    size: int
    window: int
    index_component: int | None  # column of the index vector, if indexed
    indices_batch_dim: int | None  # indices dimension, if a batching dimension
    update_dim: int | None  # update window dimension, None if inserted/batching


@dataclasses.dataclass(frozen=True)
class ScatterPlan:
    """How a scatter call maps onto row updates of a ``[V, D]`` table."""

    combiner: str
    clip: bool
    operand_shape: tuple[int, ...]
    operand_permutation: tuple[int, ...]
    row_dims: tuple[RowDim, ...]
    rows: int  # V
    columns: int  # D
    scatter_count: int  # N0: number of update windows
    window_rows: int  # row updates per window
    update_permutation: tuple[int, ...]
    dtype: np.dtype
    indices_are_sorted: bool

    @property
    def row_updates(self) -> int:
        return self.scatter_count * self.window_rows


def canonical_combiner(combiner: Any) -> str | None:
    """``"add"``, ``"mul"``, ``"min"``, ``"max"``, ``"replace"`` or None."""
    if combiner is None:
        return "replace"
    if isinstance(combiner, str):
        return _COMBINER_NAMES.get(combiner.lower())
    try:
        return _COMBINER_CALLABLES.get(combiner)
    except TypeError:  # unhashable callable
        return None


def _fallback(reason: str) -> KernelDecision:
    return KernelDecision.fallback(OP_NAME, reason)


def _mode_name(mode: Any) -> str | None:
    try:
        return jax.lax.GatherScatterMode.from_any(mode).name
    except ValueError:
        return None


def _validate(operand_shape, indices_shape, updates_shape, dnums) -> str:
    """Why the call is not a valid scatter ("" when it is)."""
    window_dims = tuple(dnums.update_window_dims)
    inserted = tuple(dnums.inserted_window_dims)
    to_operand = tuple(dnums.scatter_dims_to_operand_dims)
    batching = tuple(dnums.operand_batching_dims)
    indices_batching = tuple(dnums.scatter_indices_batching_dims)
    rank = len(operand_shape)
    if not indices_shape:
        return "indices must have an index vector dimension (the last one)"
    if len(to_operand) != indices_shape[-1]:
        return "scatter_dims_to_operand_dims does not match the index vector length"
    if len(window_dims) + len(inserted) + len(batching) != rank:
        return "window, inserted and batching dimensions do not cover the operand"
    if len(updates_shape) != len(window_dims) + len(indices_shape) - 1:
        return "updates rank does not match indices and window dimensions"
    if len(batching) != len(indices_batching):
        return "operand and indices batching dimensions differ in number"
    for group, bound in ((window_dims, len(updates_shape)), (inserted, rank),
                         (to_operand, rank), (batching, rank),
                         (indices_batching, len(indices_shape) - 1)):
        if len(set(group)) != len(group) or any(not 0 <= d < bound for d in group):
            return "repeated or out-of-range dimension number"
    if set(inserted) & set(batching):
        return "a dimension is both inserted and batching"
    if set(to_operand) & set(batching):
        return "a batching dimension is also indexed"
    scatter_dims = [d for d in range(len(updates_shape)) if d not in window_dims]
    if [updates_shape[d] for d in scatter_dims] != list(indices_shape[:-1]):
        return "update scatter dimensions do not match the indices batch shape"
    for ob, ib in zip(batching, indices_batching, strict=True):
        if operand_shape[ob] != indices_shape[ib]:
            return "batching dimension sizes differ"
    window_operand_dims = [d for d in range(rank) if d not in inserted and d not in batching]
    for ud, od in zip(window_dims, window_operand_dims, strict=True):
        if updates_shape[ud] > operand_shape[od]:
            return "an update window is larger than the operand"
    return ""


def _classify(operand_shape, updates_shape, dnums):
    """Row dimensions (with window sources) and column dimensions."""
    inserted = set(dnums.inserted_window_dims)
    batching = list(dnums.operand_batching_dims)
    to_operand = list(dnums.scatter_dims_to_operand_dims)
    window_operand_dims = [d for d in range(len(operand_shape))
                           if d not in inserted and d not in batching]
    update_dim_of = dict(zip(window_operand_dims, dnums.update_window_dims, strict=True))
    rows, columns = [], []
    for d, size in enumerate(operand_shape):
        update_dim = update_dim_of.get(d)
        window = 1 if update_dim is None else updates_shape[update_dim]
        component = to_operand.index(d) if d in to_operand else None
        batch_dim = (dnums.scatter_indices_batching_dims[batching.index(d)]
                     if d in batching else None)
        if component is None and batch_dim is None and update_dim is not None \
                and window == size:
            columns.append(d)
        else:
            rows.append(RowDim(d, size, window, component, batch_dim, update_dim))
    return tuple(rows), tuple(columns)


def plan_scatter(
    operand: Any,
    indices: Any,
    updates: Any,
    dimension_numbers: Any,
    combiner: Any = "add",
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = "drop",
) -> KernelDecision:
    """The kernel plan for a scatter call, or the reason it falls back to lax."""
    del unique_indices  # never trusted: the kernel is exact with duplicates
    name = canonical_combiner(combiner)
    if name is None:
        return _fallback(f"combiner {combiner!r} is not one of {', '.join(COMBINERS)} "
                         "(or jax.lax.add/mul/min/max)")
    mode_name = _mode_name(mode)
    if mode_name is None or mode_name == "ONE_HOT":
        return _fallback(f"mode {mode!r} is not supported (drop, fill, clip, "
                         "promise_in_bounds are)")
    dtype = np.dtype(operand.dtype)
    if np.dtype(updates.dtype) != dtype:
        return _fallback(f"operand dtype {dtype.name} and updates dtype "
                         f"{np.dtype(updates.dtype).name} differ")
    if dtype.name not in SUPPORTED_DTYPES:
        return _fallback(f"dtype {dtype.name} is not supported "
                         f"(kernel covers {', '.join(SUPPORTED_DTYPES)})")
    if not np.issubdtype(np.dtype(indices.dtype), np.integer):
        return _fallback(f"indices dtype {np.dtype(indices.dtype).name} is not an integer")
    shapes = tuple(np.shape(operand)), tuple(np.shape(indices)), tuple(np.shape(updates))
    invalid = _validate(*shapes, dimension_numbers)
    if invalid:
        return _fallback(f"invalid call: {invalid}")
    operand_shape, _, updates_shape = shapes
    if math.prod(updates_shape) == 0:
        return _fallback("no updates (empty updates array): the result is the operand")
    if math.prod(operand_shape) == 0:
        return _fallback("the operand is empty")
    row_dims, column_dims = _classify(operand_shape, updates_shape, dimension_numbers)
    rows = math.prod(r.size for r in row_dims)
    if rows > MAX_ROWS:
        return _fallback(f"{rows} operand rows do not fit int32 row ids")
    window_dims = tuple(dimension_numbers.update_window_dims)
    scatter_dims = tuple(d for d in range(len(updates_shape)) if d not in window_dims)
    update_of = {r.dim: r.update_dim for r in row_dims}
    window_of_operand = dict(zip([d for d in range(len(operand_shape))
                                  if d not in dimension_numbers.inserted_window_dims
                                  and d not in dimension_numbers.operand_batching_dims],
                                 window_dims, strict=True))
    row_update_dims = tuple(update_of[r.dim] for r in row_dims if update_of[r.dim] is not None)
    column_update_dims = tuple(window_of_operand[d] for d in column_dims)
    return KernelDecision.kernel(OP_NAME, ScatterPlan(
        combiner=name,
        clip=mode_name == "CLIP",
        operand_shape=operand_shape,
        operand_permutation=tuple(r.dim for r in row_dims) + column_dims,
        row_dims=row_dims,
        rows=rows,
        columns=math.prod(operand_shape[d] for d in column_dims),
        scatter_count=math.prod(updates_shape[d] for d in scatter_dims),
        window_rows=math.prod(r.window for r in row_dims),
        update_permutation=scatter_dims + row_update_dims + column_update_dims,
        dtype=dtype,
        indices_are_sorted=bool(indices_are_sorted),
    ))


CombineFn = Callable[[jax.Array, jax.Array], jax.Array]
COMBINE: dict[str, CombineFn] = {
    "add": jnp.add, "mul": jnp.multiply, "min": jnp.minimum, "max": jnp.maximum,
    "replace": lambda current, update: update,
}
