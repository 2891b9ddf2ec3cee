"""Which devices a collective combines: group modes, device groups, source-target pairs (one place).

Devices are numbered by XLA's global device id ``d = r * P + p`` (replica r, partition p, P partitions).
How the ids in ``replica_groups`` are read depends on the op's group mode (XLA's CollectiveOpGroupMode):

- ops with a ``use_global_device_ids`` argument (AllReduce, AllGather, ReduceScatter): no channel_id ->
  cross-replica (``use_global_device_ids`` true without a channel_id is an error); a channel_id and
  ``use_global_device_ids`` false/None -> cross-replica-and-partition; a channel_id and true -> flattened ids;
- ops without it (AllToAll, RaggedAllToAll, CollectivePermute, CollectiveBroadcast): no channel_id ->
  cross-replica; a channel_id -> cross-partition.

The shape rules check what is known when building (ids >= 0, no duplicates, uniform sizes); what needs the
device count is checked here, at execute time, raising :class:`OpError` (op, ``replica_groups``, constraint).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from backend.errors import OpError


class GroupMode(enum.Enum):
    CROSS_REPLICA = "cross_replica"
    CROSS_PARTITION = "cross_partition"
    CROSS_REPLICA_AND_PARTITION = "cross_replica_and_partition"
    FLATTENED_ID = "flattened_id"


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


#: ``group_mode``'s ``use_global_device_ids`` for ops that have no such argument.
ABSENT: Any = _Absent()


def group_mode(op: str, channel_id: int | None, use_global_device_ids: bool | None | _Absent = ABSENT, *,
               constraint: str = "arg-type") -> GroupMode:
    """The group mode of a collective (see the module doc). ``use_global_device_ids`` left out: the op has no
    such argument. ``use_global_device_ids`` true without a channel_id is an OpError with ``constraint``."""
    if use_global_device_ids is ABSENT:
        return GroupMode.CROSS_REPLICA if channel_id is None else GroupMode.CROSS_PARTITION
    if channel_id is None:
        if use_global_device_ids:
            raise OpError(op, constraint, "use_global_device_ids=True needs a channel_id (global device ids group "
                          "devices across partitions)", "use_global_device_ids",
                          {"use_global_device_ids": True, "channel_id": None})
        return GroupMode.CROSS_REPLICA
    return GroupMode.FLATTENED_ID if use_global_device_ids else GroupMode.CROSS_REPLICA_AND_PARTITION


def group_ids(groups: Sequence[Any]) -> list[list[int]]:
    """The id lists of ``replica_groups`` (ReplicaGroups or lists of ints)."""
    return [list(getattr(g, "replica_ids", g)) for g in groups]


def participant_count(mode: GroupMode, replicas: int, partitions: int) -> int:
    """How many ids ``replica_groups`` ranges over in this mode."""
    if mode is GroupMode.CROSS_PARTITION:
        return partitions
    if mode is GroupMode.FLATTENED_ID:
        return replicas * partitions
    return replicas


def device_groups(op: str, mode: GroupMode, replica_groups: Sequence[Any], replicas: int, partitions: int, *,
                  constraint: str, uniform: bool = False) -> list[list[int]]:
    """The groups of global device ids a collective combines, each in group order; every device is in exactly
    one. ``replica_groups`` empty: one group of all participants in id order. Ids out of range, an id twice,
    a participant in no group and (``uniform``) groups of different sizes are OpErrors with ``constraint``."""
    ids = group_ids(replica_groups)
    count = participant_count(mode, replicas, partitions)
    if not ids:
        ids = [list(range(count))]
    _check_groups(op, mode, ids, count, constraint, uniform)
    return global_groups(mode, ids, replicas, partitions)


def global_groups(mode: GroupMode, ids: Sequence[Sequence[int]], replicas: int, partitions: int) -> list[list[int]]:
    """The groups of global device ids that the id lists ``ids`` of ``mode`` name, each in group order (a list
    of replica ids is one group in every partition, a list of partition ids one in every replica; unchecked)."""
    if mode is GroupMode.FLATTENED_ID:
        return [list(g) for g in ids]
    if mode is GroupMode.CROSS_REPLICA:
        return [[r * partitions + p for r in g] for p in range(partitions) for g in ids]
    if mode is GroupMode.CROSS_PARTITION:
        return [[r * partitions + p for p in g] for r in range(replicas) for g in ids]
    return [[r * partitions + p for r in g for p in range(partitions)] for g in ids]


def _check_groups(op: str, mode: GroupMode, ids: list[list[int]], count: int, constraint: str, uniform: bool) -> None:
    what = {GroupMode.CROSS_PARTITION: "partition", GroupMode.FLATTENED_ID: "global device"}.get(mode, "replica")
    seen: set[int] = set()
    values = {"replica_groups": ids, "group_mode": mode.value, "participants": count}
    for i, group in enumerate(ids):
        if not group:
            raise OpError(op, constraint, f"replica group {i} is empty", "replica_groups", values)
        for x in group:
            if not 0 <= x < count:
                raise OpError(op, constraint, f"replica group {i} names {what} id {x}, but there are {count} "
                              f"{what}s (ids 0..{count - 1}; group mode {mode.value})", "replica_groups", values)
            if x in seen:
                raise OpError(op, constraint, f"{what} id {x} is in two replica groups", "replica_groups", values)
            seen.add(x)
    missing = sorted(set(range(count)) - seen)
    if missing:
        raise OpError(op, constraint, f"{what} ids {missing} are in no replica group (every one of the {count} "
                      f"{what}s must be in exactly one; group mode {mode.value})", "replica_groups", values)
    if uniform and len({len(g) for g in ids}) > 1:
        raise OpError(op, constraint, f"replica groups have different sizes {[len(g) for g in ids]}",
                      "replica_groups", values)


def op_device_groups(op: str, attrs: dict[str, Any], replicas: int, partitions: int, *, constraint: str,
                     uniform: bool = False) -> list[list[int]]:
    """:func:`device_groups` of an instruction, from its ``replica_groups``, ``channel_id`` and (where the op has
    it) ``use_global_device_ids`` attributes."""
    flag = attrs["use_global_device_ids"] if "use_global_device_ids" in attrs else ABSENT
    mode = group_mode(op, attrs.get("channel_id"), flag, constraint=constraint)
    return device_groups(op, mode, attrs.get("replica_groups") or (), replicas, partitions, constraint=constraint,
                         uniform=uniform)


def group_of(groups: Sequence[Sequence[int]], device: int) -> tuple[list[int], int]:
    """The group holding ``device`` and the device's position in it."""
    for group in groups:
        if device in group:
            return list(group), list(group).index(device)
    raise ValueError(f"device {device} is in no group")  # device_groups covers every device


def source_target_pairs(op: str, mode: GroupMode, pairs: Sequence[Sequence[int]], replicas: int, partitions: int,
                        *, constraint: str) -> list[tuple[int, int]]:
    """CollectivePermute's (source, target) pairs as global device ids: the pairs name replica ids
    (cross-replica: applied within every partition) or partition ids (cross-partition: within every replica).
    An id out of range is an OpError with ``constraint``."""
    count = participant_count(mode, replicas, partitions)
    for s, t in pairs:
        for x in (s, t):
            if not 0 <= x < count:
                what = "partition" if mode is GroupMode.CROSS_PARTITION else "replica"
                raise OpError(op, constraint, f"source_target_pairs names {what} id {x}, but there are {count} "
                              f"{what}s (ids 0..{count - 1})", "source_target_pairs",
                              {"source_target_pairs": [list(p) for p in pairs], "participants": count})
    if mode is GroupMode.CROSS_PARTITION:
        return [(r * partitions + s, r * partitions + t) for r in range(replicas) for s, t in pairs]
    return [(s * partitions + p, t * partitions + p) for p in range(partitions) for s, t in pairs]
