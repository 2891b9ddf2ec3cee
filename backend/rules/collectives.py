"""Shape rules of the reducing collectives and the device ids: AllReduce, CrossReplicaSum, ReplicaId, PartitionId.

Builder-time checks only (the device count is not known when building): which devices a collective
combines is worked out, and checked against the device count, at execute time by :mod:`backend.hlo.device_groups`.
The helpers here (group mode, uniform groups, shape_with_layout) are shared by the other collective families.
"""

from __future__ import annotations

from backend.hlo.device_groups import ABSENT, GroupMode, group_ids, group_mode
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule
from backend.rules.reduction import check_computation

U32_SCALAR = Shape.scalar_shape(PrimitiveType.U32)
#: The constraint id of execute-time replica-group errors (groups that do not fit the device count), per op.
GROUPS_CONSTRAINT = {"AllReduce": "C3", "CrossReplicaSum": "C2"}


def mode_of(ctx: OpContext, constraint: str) -> GroupMode:
    """The op's group mode from its channel_id (and use_global_device_ids, where the op has it)."""
    flag = ctx.attrs.get("use_global_device_ids", ABSENT) if "use_global_device_ids" in ctx.attrs else ABSENT
    return group_mode(ctx.op, ctx.attrs.get("channel_id"), flag, constraint=constraint)


def check_uniform_groups(ctx: OpContext, constraint: str) -> list[list[int]]:
    """replica_groups of one size (ReduceScatter, AllGather, AllToAll...); the id lists."""
    ids = group_ids(ctx.attrs.get("replica_groups") or ())
    if len({len(g) for g in ids}) > 1:
        raise ctx.fail(constraint, f"replica groups must all have the same size, got sizes {[len(g) for g in ids]}",
                       "replica_groups", replica_groups=ids)
    return ids


def check_shape_with_layout(ctx: OpContext, name: str, result: Shape, constraint: str) -> None:
    """An optional ``shape_with_layout`` (or ``layout``) attribute names the result's shape (its layout may differ)."""
    given = ctx.attrs.get(name)
    if given is None:
        return
    if given != result:  # Shape equality ignores the layout
        raise ctx.fail(constraint, f"{name} {given} is not the result's shape {result}", name,
                       **{name: str(given), "result": str(result)})


def _leaves(shape: Shape) -> list[Shape]:
    return list(shape.tuple_shapes()) if shape.is_tuple() else [shape]


def _array_or_tuple_operand(ctx: OpContext) -> tuple[Shape, list[Shape]]:
    """C1: the operand is an array or a non-empty tuple of arrays; its shape and its leaves."""
    operand = ctx.shape("operand")
    leaves = _leaves(operand)
    if not leaves or not all(s.is_array() for s in leaves):
        raise ctx.fail("C1", f"operand must be an array or a non-empty tuple of arrays, got {operand}", "operand",
                       operand=str(operand))
    return operand, leaves


@shape_rule("AllReduce")
def all_reduce(ctx: OpContext) -> Shape:
    operand, leaves = _array_or_tuple_operand(ctx)
    t = leaves[0].element_type()
    check_computation(ctx, "computation", [t, t], [t], "C2")
    mode_of(ctx, "C4")
    check_shape_with_layout(ctx, "shape_with_layout", operand, "C5")
    return operand


@shape_rule("CrossReplicaSum")
def cross_replica_sum(ctx: OpContext) -> Shape:
    return _array_or_tuple_operand(ctx)[0]


@shape_rule("ReplicaId")
def replica_id(ctx: OpContext) -> Shape:
    return U32_SCALAR


@shape_rule("PartitionId")
def partition_id(ctx: OpContext) -> Shape:
    shape = ctx.attrs.get("shape")
    if shape is not None and shape != U32_SCALAR:
        raise ctx.fail("C1", f"shape must be u32[] (a partition id is an unsigned 32-bit scalar), got {shape}", "shape",
                       shape=str(shape))
    return U32_SCALAR
