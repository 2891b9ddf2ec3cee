"""Which jax collective a collective instruction lowers to: decided statically, from the instruction and the
device count alone, and named, so that tests and users can see it (:func:`collective_path`, :func:`paths_of`).

Inside the backend's ``shard_map`` the mesh axes ('replica', 'partition') together index the devices by XLA's
global device id ``d = r * P + p``, so a collective over both axes with ``axis_index_groups`` equal to the op's
groups of global ids (each in group order: jax hands them to XLA as the replica groups) is the op itself, with
no more data moved than XLA's own collective. That holds whenever the groups have one size and cover every
device once, which the group rules guarantee for AllGather, ReduceScatter and AllToAll; AllReduce's groups may
differ in size and CollectiveBroadcast's may leave devices out: those, and the reducers jax has no collective
for, take the paths below that stay exact.

=================  ==========================================================================================
path               lowering
=================  ==========================================================================================
identity           every group is one device: the operand is the result (the one-device run included)
psum, pmax, pmin   ``lax.psum`` / ``pmax`` / ``pmin`` over the groups (AllReduce with a named Add; Max, Min
                   on integers)
all_gather         ``lax.all_gather(tiled=True)`` over the groups
all_gather+fold    AllReduce with any other computation: the group's operands gathered, folded in group order
psum_scatter       ``lax.psum_scatter(tiled=True)`` over the groups (ReduceScatter with a named Add)
all_to_all+fold    ReduceScatter with any other computation: every member's piece for this device exchanged
                   with ``lax.all_to_all``, folded in group order (the data of a reduce-scatter)
all_to_all         ``lax.all_to_all(tiled=True)`` over the groups
ppermute           CollectivePermute, MultiCollectivePermute: ``lax.ppermute`` over the replica axis (no
                   channel_id) or the partition axis, the pairs' ids being that axis's indices
psum_from_source   CollectiveBroadcast: ``lax.psum`` over the groups of the source's bits and zeros elsewhere
                   (integers: adding zeros is exact, floats and complex numbers travel as their bit patterns)
general            every device's operand gathered (``ctx.devices.gather_all``), picked and combined with
                   static per-device tables: groups of different sizes, devices in no group, element types
                   jax's collectives do not carry
=================  ==========================================================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from backend.hlo import device_groups, etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.graph import Instruction, XlaComputation
from backend.hlo.reducers import binary_reducer_name
from backend.jax_backend.devices import AXIS_NAMES
from backend.rules.collective_exchange import exchange_groups
from backend.rules.collectives import GROUPS_CONSTRAINT
from backend.runtime.point_to_point import broadcast_groups, permute_sources

_INTEGERS = frozenset(t for t in etypes.SIGNED_INTS + etypes.UNSIGNED_INTS if etypes.bit_width(t) >= 8)
_REALS = frozenset({PrimitiveType.F16, PrimitiveType.BF16, PrimitiveType.F32, PrimitiveType.F64})
_COMPLEX = frozenset(etypes.COMPLEX)
_F8 = frozenset(etypes.F8_TYPES)
#: Element types each jax reduction collective carries exactly. Max and Min: integers only, since XLA's CPU
#: all-reduce drops NaNs that lax.max keeps (jax 0.10.2, 2 CPU devices: ``lax.pmax`` of [nan, 1] is [1, 1],
#: ``lax.max(nan, 1)`` is nan); floats take all_gather+fold.
REDUCTION_TYPES = {"add": _INTEGERS | _REALS | _COMPLEX, "max": _INTEGERS, "min": _INTEGERS}
#: Element types whose bits CollectiveBroadcast's psum carries exactly (as same-width unsigned integers).
BIT_TYPES = _INTEGERS | _REALS | _COMPLEX | _F8 | {PrimitiveType.PRED}
#: The exchange ops: the attribute naming their group size, and the constraint their group errors cite.
EXCHANGE_SIZES = {"AllGather": ("shard_count", "C9"), "ReduceScatter": ("shard_count", "C11"),
                  "AllToAll": ("split_count", "C9")}
_PLAIN = {"AllGather": "all_gather", "AllToAll": "all_to_all"}
#: Every op :func:`collective_path` decides.
PATH_OPS = ("AllReduce", "CrossReplicaSum", *EXCHANGE_SIZES, "CollectiveBroadcast", "CollectivePermute",
            "MultiCollectivePermute")


@dataclasses.dataclass(frozen=True)
class CollectivePath:
    """How one collective lowers: ``name`` (a path of the module doc), ``groups`` (jax's ``axis_index_groups``
    over both mesh axes: global device ids in group order; ``None`` for one group of every device in id order,
    and on the identity, ppermute and general paths), ``axis`` (ppermute's mesh axis) and ``why`` (the reason
    for the general path)."""

    name: str
    groups: tuple[tuple[int, ...], ...] | None = None
    axis: str | None = None
    why: str = ""

    @property
    def axis_index_groups(self) -> list[list[int]] | None:
        """``groups`` as jax's ``axis_index_groups`` argument."""
        return None if self.groups is None else [list(g) for g in self.groups]

    def describe(self) -> str:
        if self.name == "general":
            return f"general (gather every device's operand, static tables): {self.why}"
        if self.name == "identity":
            return "identity (every group is one device)"
        if self.name == "ppermute":
            return f"ppermute over '{self.axis}'"
        groups = "all devices" if self.groups is None else [list(g) for g in self.groups]
        return f"{self.name} over {AXIS_NAMES}, groups {groups}"


def _groups_path(name: str, groups: Sequence[Sequence[int]]) -> CollectivePath:
    if all(len(g) == 1 for g in groups):
        return CollectivePath("identity")
    whole = len(groups) == 1 and list(groups[0]) == list(range(len(groups[0])))
    return CollectivePath(name, None if whole else tuple(tuple(g) for g in groups))


def _covers_evenly(groups: Sequence[Sequence[int]], count: int) -> str:
    """Why ``groups`` are not jax's ``axis_index_groups`` over ``count`` devices ('' when they are)."""
    if len({len(g) for g in groups}) > 1:
        return f"groups of different sizes {[len(g) for g in groups]}"
    ids = sorted(d for g in groups for d in g)
    if ids != list(range(count)):
        return "the groups do not hold every device exactly once"
    return ""


def _element_type(inst: Instruction) -> PrimitiveType:
    return inst.shape.leaf_shapes()[0].element_type() if inst.shape.is_tuple() else inst.shape.element_type()


def _reducer(inst: Instruction) -> str | None:
    if inst.opcode == "CrossReplicaSum":
        return "add"
    computation: XlaComputation = inst.attrs["computation"]
    return binary_reducer_name(computation)


def collective_path(inst: Instruction, replicas: int, partitions: int) -> CollectivePath:
    """The path of a collective instruction (an op of :data:`PATH_OPS`) on ``replicas`` x ``partitions``
    devices; the groups are checked against the device count as at execute time (an OpError)."""
    op, attrs, count = inst.opcode, inst.attrs, replicas * partitions
    if op in EXCHANGE_SIZES:
        size_name, constraint = EXCHANGE_SIZES[op]
        groups = exchange_groups(op, attrs, replicas, partitions, attrs[size_name], size_name, constraint)
        if op != "ReduceScatter":
            return _groups_path(_PLAIN[op], groups)
        plain = _reducer(inst) == "add" and _element_type(inst) in REDUCTION_TYPES["add"]
        return _groups_path("psum_scatter" if plain else "all_to_all+fold", groups)
    if op == "CollectiveBroadcast":
        groups = broadcast_groups(op, "C5", attrs.get("replica_groups") or (), attrs.get("channel_id"), replicas,
                                  partitions)
        why = _covers_evenly(groups, count) or ("" if _element_type(inst) in BIT_TYPES else
                                                 f"{_element_type(inst).name.lower()} is no type the psum carries")
        if why:
            return CollectivePath("general", why=why)
        return _groups_path("psum_from_source", groups)
    if op in ("CollectivePermute", "MultiCollectivePermute"):
        permute_sources(op, "C6", attrs["source_target_pairs"], attrs.get("channel_id"), replicas, partitions)
        return CollectivePath("ppermute", axis=AXIS_NAMES[0 if attrs.get("channel_id") is None else 1])
    if op in GROUPS_CONSTRAINT:
        groups = device_groups.op_device_groups(op, attrs, replicas, partitions, constraint=GROUPS_CONSTRAINT[op])
        if all(len(g) == 1 for g in groups):
            return CollectivePath("identity")
        why = _covers_evenly(groups, count)
        if why:
            return CollectivePath("general", why=why)
        reducer = _reducer(inst)
        if reducer in REDUCTION_TYPES and _element_type(inst) in REDUCTION_TYPES[reducer]:
            return _groups_path(f"p{reducer}" if reducer != "add" else "psum", groups)
        return _groups_path("all_gather+fold", groups)
    raise ValueError(f"{op} is not a collective with a path (one of {', '.join(PATH_OPS)})")


def paths_of(computation: XlaComputation, replicas: int, partitions: int = 1) -> list[tuple[str, CollectivePath]]:
    """(instruction name, path) of every collective of :data:`PATH_OPS` in ``computation`` and the computations it
    calls, as the jax backend lowers them on ``replicas`` x ``partitions`` devices."""
    out: list[tuple[str, Any]] = []
    for comp in (*computation.subcomputations(), computation):
        out += [(i.name, collective_path(i, replicas, partitions)) for i in comp.instructions if i.opcode in PATH_OPS]
    return out
