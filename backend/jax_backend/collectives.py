"""jax lowerings of AllReduce, CrossReplicaSum, ReplicaId and PartitionId.

A multi-device computation is traced once inside ``shard_map`` (see :mod:`backend.jax_backend.devices`).
AllReduce takes the path :func:`backend.jax_backend.collective_paths.collective_path` names: ``lax.psum`` /
``pmax`` / ``pmin`` over its groups for a named Add, Max or Min; any other computation gathers the group's
operands (``lax.all_gather`` over the groups) and folds them in group order. Groups of different sizes take the
general path: every device's operand gathered (``ctx.devices.gather_all``), its group's rows picked with static
per-device tables of :func:`backend.hlo.device_groups.device_groups` and folded in group order (a shorter group's
missing steps masked out). The fold is the computation itself (a named binary reducer as the lax op, any other
computation element by element).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from backend.hlo import etypes
from backend.hlo.device_groups import group_of, op_device_groups
from backend.hlo.graph import XlaComputation
from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.collective_paths import collective_path
from backend.jax_backend.reduction import traced
from backend.rules.collectives import GROUPS_CONSTRAINT
from backend.surface.computations import add_computation


class _Groups:
    """The static group tables of one collective: per device, its group's members (padded) and their count."""

    def __init__(self, ctx: LoweringContext) -> None:
        devices = ctx.devices
        groups = op_device_groups(ctx.inst.opcode, ctx.attrs, devices.replicas, devices.partitions,
                                  constraint=GROUPS_CONSTRAINT[ctx.inst.opcode])
        mine = [group_of(groups, d)[0] for d in range(devices.count)]
        self.width = max(len(g) for g in mine)
        self.members = [g + [g[0]] * (self.width - len(g)) for g in mine]
        self.sizes = [len(g) for g in mine]


def _elementwise(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A scalar computation applied element by element to two arrays of one shape."""
    def apply(a: Any, b: Any) -> Any:
        if a.ndim == 0:
            return fn(a, b)
        out = jax.vmap(fn)(a.reshape(-1), b.reshape(-1))
        return out.reshape(a.shape)
    return apply


def combine_fn(ctx: LoweringContext, comp: XlaComputation) -> Callable[..., Any]:
    fn = traced(ctx, comp)
    return fn if fn in (jax.lax.add, jax.lax.mul, jax.lax.max, jax.lax.min, jax.lax.bitwise_and,
                        jax.lax.bitwise_or) else _elementwise(fn)


def fold_rows(rows: Any, combine: Callable[..., Any]) -> Any:
    """rows[0] combined with rows[1], ..., rows[-1] (one row per group member, in group order), in that order."""
    acc = rows[0]
    for k in range(1, rows.shape[0]):
        acc = combine(acc, rows[k])
    return acc


def each(operand: Any, fn: Callable[[Any], Any]) -> Any:
    """``fn`` of the operand, or of each operand of a tuple (a tuple back)."""
    return tuple(fn(x) for x in operand) if isinstance(operand, (tuple, list)) else fn(operand)


def _all_reduce(ctx: LoweringContext, operand: Any, comp: XlaComputation) -> Any:
    path = collective_path(ctx.inst, ctx.devices.replicas, ctx.devices.partitions)
    if path.name == "identity":
        return tuple(operand) if isinstance(operand, list) else operand
    if path.name == "general":
        return _fold_groups(ctx, operand, comp)
    axes, groups = ctx.devices.axis_names, path.axis_index_groups
    if path.name in ("psum", "pmax", "pmin"):
        reduce = getattr(jax.lax, path.name)
        return each(operand, lambda x: reduce(x, axes, axis_index_groups=groups))
    combine = combine_fn(ctx, comp)  # all_gather+fold
    return each(operand, lambda x: fold_rows(jax.lax.all_gather(x, axes, axis_index_groups=groups), combine))


def _fold_groups(ctx: LoweringContext, operand: Any, comp: XlaComputation) -> Any:
    tables = _Groups(ctx)
    combine = combine_fn(ctx, comp)
    devices = ctx.devices
    me = devices.device_id()
    members = devices.table(tables.members)[me]
    size = devices.table(tables.sizes)[me]

    def fold(x: Any) -> Any:
        rows = devices.gather_all(x)
        acc = rows[members[0]]
        for k in range(1, tables.width):
            step = combine(acc, rows[members[k]])
            acc = step if k < min(tables.sizes) else jnp.where(k < size, step, acc)
        return acc
    return each(operand, fold)


@lowering("AllReduce")
def all_reduce(ctx: LoweringContext, operand: Any) -> Any:
    return _all_reduce(ctx, operand, ctx.attr("computation"))


@lowering("CrossReplicaSum")
def cross_replica_sum(ctx: LoweringContext, operand: Any) -> Any:
    first = operand[0] if isinstance(operand, (tuple, list)) else operand
    return _all_reduce(ctx, operand, add_computation(etypes.dtype_to_etype(first.dtype)))


@lowering("ReplicaId")
def replica_id(ctx: LoweringContext) -> Any:
    return ctx.devices.replica_id().astype(jnp.uint32)


@lowering("PartitionId")
def partition_id(ctx: LoweringContext) -> Any:
    return ctx.devices.partition_id().astype(jnp.uint32)
