"""Reference evaluators of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast (and the device tables the jax lowerings share).

Each device's result is picked from every device's operand (``ctx.devices.exchange``): the tables
say, per global device id, which device it receives from (None: zeros).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.errors import OpError
from backend.reference import evaluator


def device_layout(ctx: Any) -> tuple[int, int]:
    """(replicas, partitions) of the running execution."""
    devices = getattr(ctx, "devices", None)
    return (1, 1) if devices is None else (devices.replicas, devices.partitions)


def _mode_ids(channel_id: int | None, replicas: int, partitions: int) -> tuple[bool, int]:
    """(ids are partition ids, how many ids there are): no channel_id -> cross-replica, else cross-partition."""
    cross_partition = channel_id is not None
    return cross_partition, partitions if cross_partition else replicas


def _global_sources(source_of: dict[int, int], cross_partition: bool, replicas: int,
                    partitions: int) -> list[int | None]:
    """Per global device id d = r * partitions + p: the global id it receives from (None: none)."""
    out: list[int | None] = []
    for d in range(replicas * partitions):
        r, p = divmod(d, partitions)
        source = source_of.get(p if cross_partition else r)
        out.append(None if source is None else (r * partitions + source if cross_partition
                                                else source * partitions + p))
    return out


def _check_ids(op: str, constraint: str, arg: str, ids: Sequence[int], cross_partition: bool, count: int) -> None:
    for i in ids:
        if i >= count:
            kind = "partition" if cross_partition else "replica"
            raise OpError(op, constraint, f"{arg} names {kind} id {i}, but the execution has {count} {kind}s "
                          f"({'with' if cross_partition else 'without'} a channel_id the ids are {kind} ids)", arg,
                          {"id": i, f"{kind}s": count})


def permute_sources(op: str, constraint: str, pairs: Sequence[tuple[int, int]], channel_id: int | None,
                    replicas: int, partitions: int) -> list[int | None]:
    """CollectivePermute's table: per device, the device whose operand it gets (None: zeros)."""
    cross_partition, count = _mode_ids(channel_id, replicas, partitions)
    _check_ids(op, constraint, "source_target_pairs", [i for pair in pairs for i in pair], cross_partition, count)
    return _global_sources({t: s for s, t in pairs}, cross_partition, replicas, partitions)


def broadcast_sources(op: str, constraint: str, groups: Sequence[Any], channel_id: int | None, replicas: int,
                      partitions: int) -> list[int | None]:
    """CollectiveBroadcast's table: per device, its group's first device (None: in no group, zeros)."""
    cross_partition, count = _mode_ids(channel_id, replicas, partitions)
    id_groups = [list(g.replica_ids) for g in groups] or [list(range(count))]
    _check_ids(op, constraint, "replica_groups", [i for g in id_groups for i in g], cross_partition, count)
    return _global_sources({i: g[0] for g in id_groups for i in g}, cross_partition, replicas, partitions)


def _exchange(ctx: Any, value: Any) -> list[Any]:
    devices = getattr(ctx, "devices", None)
    return [value] if devices is None else devices.exchange(value)


def _device_id(ctx: Any) -> int:
    devices = getattr(ctx, "devices", None)
    return 0 if devices is None else devices.device_id


def _received(ctx: Any, operands: Sequence[np.ndarray], sources: list[int | None]) -> list[np.ndarray]:
    everything = _exchange(ctx, tuple(operands))
    source = sources[_device_id(ctx)]
    return [np.zeros_like(x) if source is None else np.array(everything[source][k]) for k, x in enumerate(operands)]


def _permute_table(ctx: Any, constraint: str) -> list[int | None]:
    return permute_sources(ctx.inst.opcode, constraint, ctx.attr("source_target_pairs"), ctx.attr("channel_id"),
                           *device_layout(ctx))


@evaluator("CollectivePermute")
def collective_permute(ctx: Any, operand: np.ndarray) -> np.ndarray:
    return _received(ctx, [operand], _permute_table(ctx, "C6"))[0]


@evaluator("MultiCollectivePermute")
def multi_collective_permute(ctx: Any, operands: list[np.ndarray]) -> Any:
    out = _received(ctx, operands, _permute_table(ctx, "C6"))
    return out[0] if len(out) == 1 else tuple(out)


@evaluator("CollectiveBroadcast")
def collective_broadcast(ctx: Any, operand: np.ndarray) -> np.ndarray:
    sources = broadcast_sources("CollectiveBroadcast", "C5", ctx.attr("replica_groups"), ctx.attr("channel_id"),
                                *device_layout(ctx))
    return _received(ctx, [operand], sources)[0]
