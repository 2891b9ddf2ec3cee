"""jax lowerings of AllGather, ReduceScatter, AllToAll and RaggedAllToAll.

Every mode and group shape lowers the same way (correct for all of XLA's group modes): ``gather_all``
stacks every device's operand in device order, and static per-device tables built from
backend/hlo/device_groups.py's groups (the members of this device's group, in group order, and its position)
pick and combine the pieces, indexed by the traced device id.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.collectives import _combine_fn as combine_fn
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


def _merge_leading(x: jax.Array, dim: int) -> jax.Array:
    """[S, d_0, ..., d_n] -> the S pieces concatenated along dimension ``dim``."""
    moved = jnp.moveaxis(x, 0, dim)
    shape = list(moved.shape)
    return moved.reshape(shape[:dim] + [shape[dim] * shape[dim + 1]] + shape[dim + 2:])


def _piece(x: jax.Array, dim: int, index: jax.Array, count: int) -> jax.Array:
    size = x.shape[dim] // count
    return lax.dynamic_slice_in_dim(x, index * size, size, axis=dim)


@lowering("AllGather")
def all_gather(ctx: LoweringContext, operand: jax.Array) -> jax.Array:
    members, _ = _tables(ctx, ctx.attr("shard_count"), "shard_count", "C9")
    return _merge_leading(ctx.devices.gather_all(operand)[members], ctx.attr("all_gather_dimension"))


@lowering("ReduceScatter")
def reduce_scatter(ctx: LoweringContext, operand: Any) -> Any:
    shards = ctx.attr("shard_count")
    members, position = _tables(ctx, shards, "shard_count", "C11")
    dim = ctx.attr("scatter_dimension")

    combine = combine_fn(ctx, ctx.attr("computation"))  # AllReduce's (backend/jax_backend/collectives.py)

    def one(x: jax.Array) -> jax.Array:
        mine = _piece(ctx.devices.gather_all(x)[members], dim + 1, position, shards)  # every member's shard
        acc = mine[0]
        for j in range(1, shards):  # in group order, as the reference folds
            acc = combine(acc, mine[j])
        return acc

    return tuple(one(x) for x in operand) if isinstance(operand, (tuple, list)) else one(operand)


@lowering("AllToAll")
def all_to_all(ctx: LoweringContext, operand: jax.Array) -> jax.Array:
    count = ctx.attr("split_count")
    members, position = _tables(ctx, count, "split_count", "C9")
    mine = ctx.devices.gather_all(operand)[members]
    pieces = _piece(mine, ctx.attr("split_dimension") + 1, position, count)
    return _merge_leading(pieces, ctx.attr("concat_dimension"))


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
