"""Reference evaluators of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast, and their per-device source tables (which the jax lowerings share); Send, Recv,
SendDone, RecvDone (on one device: a Send posts its operand on its channel in ``ctx.channels``, the
RecvDone of a Recv on that channel takes the oldest; the jax lowerings use the same functions).

The group mode and the global device ids come from :mod:`backend.collectives`. Each device's result is
picked from every device's operand (``ctx.devices.exchange``): the table says, per global device id,
which device it receives from (None: no pair or group gives it one, zeros).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from backend import collectives, host_io
from backend.errors import OpError, UnsupportedError
from backend.reference import evaluator


def _table(count: int, global_pairs: Sequence[tuple[int, int]]) -> list[int | None]:
    source_of: dict[int, int] = {t: s for s, t in global_pairs}
    return [source_of.get(d) for d in range(count)]


def permute_sources(op: str, constraint: str, pairs: Sequence[tuple[int, int]], channel_id: int | None,
                    replicas: int, partitions: int) -> list[int | None]:
    """CollectivePermute's table: per global device id, the device whose operand it gets (None: zeros).
    An id out of range is an OpError with ``constraint``."""
    mode = collectives.group_mode(op, channel_id)
    global_pairs = collectives.source_target_pairs(op, mode, pairs, replicas, partitions, constraint=constraint)
    return _table(replicas * partitions, global_pairs)


def broadcast_sources(op: str, constraint: str, replica_groups: Sequence[Any], channel_id: int | None,
                      replicas: int, partitions: int) -> list[int | None]:
    """CollectiveBroadcast's table: per global device id, its group's first device (None: in no group,
    zeros). Empty replica_groups is one group of every id. An id out of range is an OpError."""
    mode = collectives.group_mode(op, channel_id)
    count = collectives.participant_count(mode, replicas, partitions)
    groups = collectives.group_ids(replica_groups) or [list(range(count))]
    for i, group in enumerate(groups):
        for x in group:
            if x >= count:
                what = "partition" if mode is collectives.GroupMode.CROSS_PARTITION else "replica"
                raise OpError(op, constraint, f"replica group {i} names {what} id {x}, but there are {count} {what}s "
                              f"(ids 0..{count - 1}; group mode {mode.value})", "replica_groups",
                              {"replica_groups": groups, "participants": count})
    pairs = [(group[0], x) for group in groups for x in group]  # the first id sends to every id of its group
    return _table(replicas * partitions,
                  collectives.source_target_pairs(op, mode, pairs, replicas, partitions, constraint=constraint))


def _received(ctx: Any, operands: Sequence[np.ndarray], sources: list[int | None]) -> list[np.ndarray]:
    everything = ctx.devices.exchange(tuple(operands), ctx.inst.opcode)
    source = sources[ctx.devices.device_id]
    return [np.zeros_like(x) if source is None else np.array(everything[source][k]) for k, x in enumerate(operands)]


def permute_table(ctx: Any, constraint: str) -> list[int | None]:
    """The table of the running CollectivePermute / MultiCollectivePermute instruction."""
    return permute_sources(ctx.inst.opcode, constraint, ctx.attr("source_target_pairs"), ctx.attr("channel_id"),
                           ctx.devices.replicas, ctx.devices.partitions)


def broadcast_table(ctx: Any) -> list[int | None]:
    """The table of the running CollectiveBroadcast instruction."""
    return broadcast_sources(ctx.inst.opcode, "C5", ctx.attr("replica_groups"), ctx.attr("channel_id"),
                             ctx.devices.replicas, ctx.devices.partitions)


@evaluator("CollectivePermute")
def collective_permute(ctx: Any, operand: np.ndarray) -> np.ndarray:
    return _received(ctx, [operand], permute_table(ctx, "C6"))[0]


@evaluator("MultiCollectivePermute")
def multi_collective_permute(ctx: Any, operands: list[np.ndarray]) -> Any:
    out = _received(ctx, operands, permute_table(ctx, "C6"))
    return out[0] if len(out) == 1 else tuple(out)


@evaluator("CollectiveBroadcast")
def collective_broadcast(ctx: Any, operand: np.ndarray) -> np.ndarray:
    return _received(ctx, [operand], broadcast_table(ctx))[0]


#: The request id of every Send/Recv context (the spec's implementation-defined ``request_id``).
REQUEST_ID = np.uint32(0)


def one_device(ctx: Any) -> None:
    if ctx.devices.count > 1:
        raise UnsupportedError(ctx.backend, ctx.inst.opcode, f"Send/Recv on {ctx.devices.count} devices: the "
                               "document does not say which device's Recv a Send reaches (XLA reads it from the "
                               "frontend attribute _xla_send_recv_source_target_pairs, which the builder API lacks)")


def post_send(ctx: Any, operand: Any) -> tuple[Any, Any, Any]:
    """Send: post ``operand`` on the channel; the context (operand, request id, token)."""
    one_device(ctx)
    ctx.channels.setdefault(ctx.attr("handle"), []).append((ctx.operand_shapes[0], operand))
    return operand, REQUEST_ID, host_io.TOKEN


def take_received(ctx: Any, buffer: Any) -> Any:
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


@evaluator("Send")
def send(ctx: Any, operand: np.ndarray) -> tuple[Any, Any, Any]:
    return post_send(ctx, np.array(operand))


@evaluator("Recv")
def recv(ctx: Any) -> tuple[Any, Any, Any]:
    one_device(ctx)
    data = ctx.shape.tuple_shapes()[0]
    return np.zeros(data.dimensions(), data.numpy_dtype()), REQUEST_ID, host_io.TOKEN


@evaluator("SendDone")
def send_done(ctx: Any, context: Any) -> Any:
    return host_io.TOKEN


@evaluator("RecvDone")
def recv_done(ctx: Any, context: Any) -> tuple[Any, Any]:
    return take_received(ctx, context[0]), host_io.TOKEN
