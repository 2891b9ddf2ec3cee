"""Wrapper-side preparation shared by both kernel variants.

Turns a planned scatter into *row updates*: a destination row id per update
row (``DROPPED`` for windows that leave the operand) and an ``[N, D]`` matrix
of update rows, then sorts them by row id (``jax.lax.sort``, stable, so equal
rows keep their original order) and gathers the update rows in that order.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from pallas_kernels.scatter_kernel.plan import ScatterPlan
from pallas_kernels.toolkit.tiling import round_up

DROPPED = np.iinfo(np.int32).max
"""Row id of skipped updates and of padding: sorts last and matches no row."""
ROW_PADDING = 256
"""Sorted rows are padded to a multiple of this, plus one more such block, so
kernels may read a whole chunk past any run without leaving the array."""


def _window_starts(indices: jax.Array, plan: ScatterPlan) -> tuple[list[jax.Array], jax.Array]:
    """Per row dimension, the (int32) window start of every update window; validity."""
    index_vectors = indices.reshape(plan.scatter_count, indices.shape[-1])
    batch_shape = indices.shape[:-1]
    starts, valid = [], jnp.ones((plan.scatter_count,), bool)
    for row in plan.row_dims:
        if row.index_component is not None:
            start = index_vectors[:, row.index_component]
            limit = row.size - row.window
            if plan.clip:
                start = jnp.clip(start, 0, limit)
            else:
                ok = (start >= 0) & (start <= limit)
                valid = valid & ok
                start = jnp.where(ok, start, 0)
            starts.append(start.astype(jnp.int32))
        elif row.indices_batch_dim is not None:
            position = jax.lax.broadcasted_iota(jnp.int32, batch_shape, row.indices_batch_dim)
            starts.append(position.reshape(plan.scatter_count))
        else:
            starts.append(jnp.zeros((plan.scatter_count,), jnp.int32))
    return starts, valid


def row_ids(indices: jax.Array, plan: ScatterPlan) -> jax.Array:
    """Destination row of every row update (``[N0 * window_rows]`` int32)."""
    starts, valid = _window_starts(indices, plan)
    window_shape = tuple(r.window for r in plan.row_dims)
    offsets = np.indices(window_shape).reshape(len(window_shape), -1)
    strides = np.cumprod([1] + [r.size for r in plan.row_dims[::-1]])[:-1][::-1]
    linear = jnp.zeros((plan.scatter_count, plan.window_rows), jnp.int32)
    for start, offset, stride in zip(starts, offsets, strides, strict=True):
        linear = linear + (start[:, None] + jnp.asarray(offset, jnp.int32)[None, :]) * int(stride)
    linear = jnp.where(valid[:, None], linear, DROPPED)
    return linear.reshape(plan.row_updates)


def row_updates(updates: jax.Array, plan: ScatterPlan) -> jax.Array:
    """The update rows, ``[N0 * window_rows, D]``, in :func:`row_ids` order."""
    return jnp.transpose(updates, plan.update_permutation).reshape(
        plan.row_updates, plan.columns)


def operand_table(operand: jax.Array, plan: ScatterPlan) -> jax.Array:
    """The operand as the ``[V, D]`` table of rows."""
    return jnp.transpose(operand, plan.operand_permutation).reshape(plan.rows, plan.columns)


def result_from_table(table: jax.Array, plan: ScatterPlan) -> jax.Array:
    """Undo :func:`operand_table`."""
    permuted_shape = tuple(plan.operand_shape[d] for d in plan.operand_permutation)
    inverse = tuple(int(i) for i in np.argsort(plan.operand_permutation))
    return jnp.transpose(table.reshape(permuted_shape), inverse)


def _is_sorted(keys: jax.Array) -> jax.Array:
    return jnp.all(keys[1:] >= keys[:-1])


def sort_rows(keys: jax.Array, trust_sorted_hint: bool) -> tuple[jax.Array, jax.Array]:
    """Stably sorted row ids and the update row each came from.

    With the ``indices_are_sorted`` hint the sort is skipped when a cheap
    on-device check confirms the ids are already sorted (never trusted blindly).
    """
    order = jnp.arange(keys.shape[0], dtype=jnp.int32)

    def sort(keys, order):
        return tuple(jax.lax.sort((keys, order), num_keys=1, is_stable=True))

    if not trust_sorted_hint:
        return sort(keys, order)
    return tuple(jax.lax.cond(_is_sorted(keys), lambda k, o: (k, o), sort, keys, order))


def sorted_row_updates(
    keys: jax.Array, updates: jax.Array, trust_sorted_hint: bool
) -> tuple[jax.Array, jax.Array]:
    """Sorted row ids and update rows, padded with ``DROPPED`` rows of zeros.

    The padded length is a multiple of :data:`ROW_PADDING` with at least
    ``ROW_PADDING`` trailing padding rows.  Dropped updates are zeroed, so they
    cannot inject NaN or inf anywhere.
    """
    sorted_keys, order = sort_rows(keys, trust_sorted_hint)
    padded = round_up(keys.shape[0], ROW_PADDING) + ROW_PADDING
    extra = padded - keys.shape[0]
    sorted_keys = jnp.pad(sorted_keys, (0, extra), constant_values=DROPPED)
    order = jnp.pad(order, (0, extra))
    rows = jnp.take(updates, order, axis=0, mode="clip")
    rows = jnp.where((sorted_keys != DROPPED)[:, None], rows, jnp.zeros((), rows.dtype))
    return sorted_keys, rows
