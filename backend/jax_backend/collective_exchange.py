"""jax lowerings of AllGather, ReduceScatter, AllToAll and RaggedAllToAll.

AllGather, ReduceScatter and AllToAll take the path :func:`backend.jax_backend.collective_paths.collective_path`
names: their groups always have one size and cover every device, so each is jax's own collective over the mesh
axes with the groups as ``axis_index_groups`` (``lax.all_gather``, ``psum_scatter``, ``all_to_all``; a
ReduceScatter with a computation other than a named Add exchanges the pieces with ``all_to_all`` and folds them
in group order). RaggedAllToAll takes the general path: ``gather_all`` stacks every device's operand in device
order, and static per-device tables built from backend/hlo/device_groups.py's groups (the members of this
device's group, in group order, and its position) pick the pieces, indexed by the traced device id.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.collective_paths import CollectivePath, collective_path
from backend.jax_backend.collectives import combine_fn, each, fold_rows
from backend.rules.collective_exchange import exchange_groups


def _tables(ctx: LoweringContext, size: int, size_name: str, constraint: str) -> tuple[jax.Array, jax.Array]:
    """This device's group members (global ids, group order) and its position, as traced values."""
    devices = ctx.devices
    groups = exchange_groups(ctx.inst.opcode, ctx.attrs, devices.replicas, devices.partitions, size, size_name,
                             constraint)
    members, positions = [None] * devices.count, [0] * devices.count
    for group in groups:
        for i, d in enumerate(group):
            members[d], positions[d] = group, i
    me = devices.device_id()
    return devices.table(members)[me], devices.table(positions)[me]


def _path(ctx: LoweringContext) -> CollectivePath:
    return collective_path(ctx.inst, ctx.devices.replicas, ctx.devices.partitions)


@lowering("AllGather")
def all_gather(ctx: LoweringContext, operand: jax.Array) -> jax.Array:
    path = _path(ctx)
    if path.name == "identity":
        return operand
    return lax.all_gather(operand, ctx.devices.axis_names, axis=ctx.attr("all_gather_dimension"), tiled=True,
                          axis_index_groups=path.axis_index_groups)


def _pieces_first(x: jax.Array, dim: int, count: int) -> jax.Array:
    """``x`` cut into ``count`` pieces along ``dim``, the pieces on a new leading axis."""
    shape = list(x.shape)
    split = x.reshape(shape[:dim] + [count, shape[dim] // count] + shape[dim + 1:])
    return jnp.moveaxis(split, dim, 0)


@lowering("ReduceScatter")
def reduce_scatter(ctx: LoweringContext, operand: Any) -> Any:
    path, dim, axes = _path(ctx), ctx.attr("scatter_dimension"), ctx.devices.axis_names
    if path.name == "identity":
        return tuple(operand) if isinstance(operand, list) else operand
    groups = path.axis_index_groups
    if path.name == "psum_scatter":
        return each(operand, lambda x: lax.psum_scatter(x, axes, scatter_dimension=dim, tiled=True,
                                                        axis_index_groups=groups))
    combine = combine_fn(ctx, ctx.attr("computation"))  # all_to_all+fold: AllReduce's combination

    def one(x: jax.Array) -> jax.Array:  # row j: member j's piece for this device, folded in group order
        pieces = _pieces_first(x, dim, ctx.attr("shard_count"))
        return fold_rows(lax.all_to_all(pieces, axes, 0, 0, tiled=True, axis_index_groups=groups), combine)
    return each(operand, one)


@lowering("AllToAll")
def all_to_all(ctx: LoweringContext, operand: jax.Array) -> jax.Array:
    path = _path(ctx)
    if path.name == "identity":
        return operand
    return lax.all_to_all(operand, ctx.devices.axis_names, ctx.attr("split_dimension"), ctx.attr("concat_dimension"),
                          tiled=True, axis_index_groups=path.axis_index_groups)


@lowering("RaggedAllToAll")
def ragged_all_to_all(ctx: LoweringContext, input: jax.Array, input_offsets: jax.Array, send_sizes: jax.Array,
                      output: jax.Array, output_offsets: jax.Array, recv_sizes: jax.Array) -> jax.Array:
    size = input_offsets.shape[0]
    members, position = _tables(ctx, size, "the index arrays' size", "C7")
    if input.shape[0] == 0:  # an empty input sends nothing (every segment reaches outside it)
        return output
    gather = ctx.devices.gather_all
    data, starts, sizes, ats = (gather(a)[members] for a in (input, input_offsets, send_sizes, output_offsets))
    rows, out_rows = input.shape[0], output.shape[0]
    at_row = jnp.arange(out_rows, dtype=starts.dtype)
    result = output
    for j in range(size):  # senders in group order: a later sender's overlapping segment stays
        start, count, at = starts[j, position], sizes[j, position], ats[j, position]
        k = at_row - at
        source = start + k
        valid = (k >= 0) & (k < count) & (source >= 0) & (source < rows)  # the rest is dropped
        values = jnp.take(data[j], jnp.clip(source, 0, rows - 1), axis=0)
        mask = valid.reshape((out_rows,) + (1,) * (output.ndim - 1))
        result = jnp.where(mask, values, result)
    return result
