"""jax lowerings of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast.

The device tables come from backend/reference/point_to_point.py (one place). CollectivePermute is
``lax.ppermute`` over the mesh axis of its group mode (it zeros the devices no pair targets, as
the seed says); CollectiveBroadcast gathers every device's operand and picks by a static table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.jax_backend import lowering
from backend.reference.point_to_point import broadcast_sources, device_layout, permute_sources


def _single_device(operands: Sequence[Any], sources: list[int | None]) -> list[Any]:
    return [x if sources[0] is not None else jnp.zeros_like(x) for x in operands]


def _permute(ctx: Any, operands: Sequence[Any], constraint: str) -> list[Any]:
    pairs, channel_id = ctx.attr("source_target_pairs"), ctx.attr("channel_id")
    replicas, partitions = device_layout(ctx)
    sources = permute_sources(ctx.inst.opcode, constraint, pairs, channel_id, replicas, partitions)
    if replicas * partitions == 1:
        return _single_device(operands, sources)
    axis = ctx.devices.axis_names[1 if channel_id is not None else 0]
    return [lax.ppermute(x, axis, perm=[tuple(p) for p in pairs]) for x in operands]


@lowering("CollectivePermute")
def collective_permute(ctx: Any, operand: Any) -> Any:
    return _permute(ctx, [operand], "C6")[0]


@lowering("MultiCollectivePermute")
def multi_collective_permute(ctx: Any, operands: list[Any]) -> Any:
    out = _permute(ctx, operands, "C6")
    return out[0] if len(out) == 1 else tuple(out)


@lowering("CollectiveBroadcast")
def collective_broadcast(ctx: Any, operand: Any) -> Any:
    replicas, partitions = device_layout(ctx)
    sources = broadcast_sources("CollectiveBroadcast", "C5", ctx.attr("replica_groups"), ctx.attr("channel_id"),
                                replicas, partitions)
    if replicas * partitions == 1:
        return _single_device([operand], sources)[0]
    devices = ctx.devices
    everything = devices.gather_all(operand)
    me = devices.device_id()
    source = devices.table([0 if s is None else s for s in sources])[me]
    has_source = devices.table([s is not None for s in sources])[me]
    return jnp.where(has_source, everything[source], jnp.zeros_like(operand))
