"""The backend-neutral part of the point-to-point collectives: each device's source table (CollectivePermute,
MultiCollectivePermute, CollectiveBroadcast) and the Send/Recv channel mailbox (``ctx.channels``), shared by the
reference evaluators and the jax lowerings.

The group mode and the global device ids come from :mod:`backend.hlo.device_groups`. The table says, per global
device id, which device it receives from (None: no pair or group gives it one, zeros).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.errors import OpError, UnsupportedError
from backend.hlo import device_groups
from backend.hlo.token import TOKEN
from backend.runtime.context import DeviceInfo, OpRunContext


def _table(count: int, global_pairs: Sequence[tuple[int, int]]) -> list[int | None]:
    source_of: dict[int, int] = {t: s for s, t in global_pairs}
    return [source_of.get(d) for d in range(count)]


def permute_sources(op: str, constraint: str, pairs: Sequence[tuple[int, int]], channel_id: int | None,
                    replicas: int, partitions: int) -> list[int | None]:
    """CollectivePermute's table: per global device id, the device whose operand it gets (None: zeros).
    An id out of range is an OpError with ``constraint``."""
    mode = device_groups.group_mode(op, channel_id)
    global_pairs = device_groups.source_target_pairs(op, mode, pairs, replicas, partitions, constraint=constraint)
    return _table(replicas * partitions, global_pairs)


def broadcast_groups(op: str, constraint: str, replica_groups: Sequence[Any], channel_id: int | None,
                     replicas: int, partitions: int) -> list[list[int]]:
    """CollectiveBroadcast's groups of global device ids, each in group order (its first device sends). Empty
    replica_groups is one group of every id; a device may be in no group. An id out of range is an OpError."""
    mode = device_groups.group_mode(op, channel_id)
    count = device_groups.participant_count(mode, replicas, partitions)
    groups = device_groups.group_ids(replica_groups) or [list(range(count))]
    for i, group in enumerate(groups):
        for x in group:
            if x >= count:
                what = "partition" if mode is device_groups.GroupMode.CROSS_PARTITION else "replica"
                raise OpError(op, constraint, f"replica group {i} names {what} id {x}, but there are {count} {what}s "
                              f"(ids 0..{count - 1}; group mode {mode.value})", "replica_groups",
                              {"replica_groups": groups, "participants": count})
    return device_groups.global_groups(mode, groups, replicas, partitions)


def broadcast_sources(op: str, constraint: str, replica_groups: Sequence[Any], channel_id: int | None,
                      replicas: int, partitions: int) -> list[int | None]:
    """CollectiveBroadcast's table: per global device id, its group's first device (None: in no group,
    zeros). Empty replica_groups is one group of every id. An id out of range is an OpError."""
    groups = broadcast_groups(op, constraint, replica_groups, channel_id, replicas, partitions)
    # the first id sends to every id of its group
    return _table(replicas * partitions, [(group[0], x) for group in groups for x in group])


def permute_table(ctx: OpRunContext[DeviceInfo], constraint: str) -> list[int | None]:
    """The table of the running CollectivePermute / MultiCollectivePermute instruction."""
    return permute_sources(ctx.inst.opcode, constraint, ctx.attr("source_target_pairs"), ctx.attr("channel_id"),
                           ctx.devices.replicas, ctx.devices.partitions)


def broadcast_table(ctx: OpRunContext[DeviceInfo]) -> list[int | None]:
    """The table of the running CollectiveBroadcast instruction."""
    return broadcast_sources(ctx.inst.opcode, "C5", ctx.attr("replica_groups"), ctx.attr("channel_id"),
                             ctx.devices.replicas, ctx.devices.partitions)


#: The request id of every Send/Recv context (the spec's implementation-defined ``request_id``).
REQUEST_ID = np.uint32(0)


def one_device(ctx: OpRunContext[DeviceInfo]) -> None:
    if ctx.devices.count > 1:
        raise UnsupportedError(ctx.backend, ctx.inst.opcode, f"Send/Recv on {ctx.devices.count} devices: the "
                               "document does not say which device's Recv a Send reaches (XLA reads it from the "
                               "frontend attribute _xla_send_recv_source_target_pairs, which the builder API lacks)")


def post_send(ctx: OpRunContext[DeviceInfo], operand: Any) -> tuple[Any, Any, Any]:
    """Send: post ``operand`` on the channel; the context (operand, request id, token)."""
    one_device(ctx)
    ctx.channels.setdefault(ctx.attr("handle"), []).append((ctx.operand_shapes[0], operand))
    return operand, REQUEST_ID, TOKEN


def take_received(ctx: OpRunContext[DeviceInfo], buffer: Any) -> Any:
    """RecvDone: the operand of the oldest Send on the Recv's channel not taken yet, else an OpError; a context
    that is not straight from a Recv (no channel_id) is a completed transfer: its buffer."""
    channel = ctx.attrs.get("channel_id")
    if channel is None:
        return buffer
    posted = ctx.channels.get(channel)
    if not posted:
        raise OpError("RecvDone", "channel", f"no Send on channel {channel} ran before this RecvDone in the same run "
                      "of the computation (XLA would wait for it forever)", "context", {"channel_id": channel})
    shape, value = posted.pop(0)
    expected = ctx.operand_shapes[0].tuple_shapes()[0]
    if shape != expected:
        raise OpError("RecvDone", "channel", f"the Send on channel {channel} sent {shape}, but the Recv receives "
                      f"{expected}", "context", {"channel_id": channel, "sent": str(shape), "received": str(expected)})
    return value
