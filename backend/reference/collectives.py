"""Reference evaluators of AllReduce, CrossReplicaSum, ReplicaId and PartitionId.

Each device runs in its own thread (see :mod:`backend.reference.devices`); a collective hands its operand to
``ctx.devices.exchange`` and gets every device's back, then combines those of its group
(:func:`backend.hlo.device_groups.device_groups`) in group order: float and complex Add in float64 / complex128,
rounded once (the ``reduction_order`` outcome ``group_order``), anything else with the computation itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.hlo import etypes
from backend.hlo.device_groups import group_of, op_device_groups
from backend.hlo.graph import XlaComputation
from backend.hlo.reducers import binary_reducer_name
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, flush_subnormals
from backend.reference.elementwise import subnormal_mask
from backend.reference.reduction import _combiner, _finish, reassociation_allowed
from backend.rules.collectives import GROUPS_CONSTRAINT
from backend.surface.computations import add_computation


def my_group(ctx: EvaluatorContext) -> list[int]:
    """The global device ids of this device's group, in group order; groups that do not fit the device count are
    an OpError (the op's execute-time constraint)."""
    devices = ctx.devices
    groups = op_device_groups(ctx.inst.opcode, ctx.attrs, devices.replicas, devices.partitions,
                              constraint=GROUPS_CONSTRAINT[ctx.inst.opcode])
    return group_of(groups, devices.device_id)[0]


def _leaves(value: Any) -> list[np.ndarray]:
    return list(value) if isinstance(value, tuple) else [value]


def _fold(ctx: EvaluatorContext, comp: XlaComputation, values: list[Any]) -> Any:
    """The group's values (arrays or tuples of arrays) combined in group order, leaf by leaf."""
    out = []
    for k, first in enumerate(_leaves(values[0])):
        combine, acc_dtypes = _combiner(ctx, comp, [first.dtype])
        accs = [np.asarray(first).astype(acc_dtypes[0])]
        with np.errstate(all="ignore"):
            for v in values[1:]:
                accs = combine(accs, [np.asarray(_leaves(v)[k])])
        out.append(_finish(accs, [first.dtype]))
    return tuple(out) if isinstance(values[0], tuple) else out[0]


def _reduce_in_group(ctx: EvaluatorContext, operand: Any, comp: XlaComputation) -> Any:
    group = my_group(ctx)
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    return _fold(ctx, comp, [values[d] for d in group])


@evaluator("AllReduce")
def all_reduce(ctx: EvaluatorContext, operand: Any) -> Any:
    return _reduce_in_group(ctx, operand, ctx.attr("computation"))


@evaluator("CrossReplicaSum")
def cross_replica_sum(ctx: EvaluatorContext, operand: Any) -> Any:
    return _reduce_in_group(ctx, operand, add_computation(etypes.dtype_to_etype(_leaves(operand)[0].dtype)))


def _outcomes(ctx: EvaluatorContext, operand: Any, comp: XlaComputation) -> dict[str, Allowed]:
    """``reduction_order`` (see :func:`_order`) and ``subnormals``: XLA on CPU and GPU reads subnormal operands as
    zeros and flushes subnormal results (each step of the fold)."""
    group = my_group(ctx)
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    return group_outcomes(ctx, operand, comp, [values[d] for d in group])


def group_outcomes(ctx: EvaluatorContext, operand: Any, comp: XlaComputation, members: list[Any]) -> dict[str, Allowed]:
    """:func:`_outcomes` of the group's values ``members`` (ReduceScatter: each member's shard)."""
    result = _fold(ctx, comp, members)
    table: dict[str, Allowed] = {}
    order = _order(ctx, comp, members, result)
    if order is not None:
        table["reduction_order"] = order
    leaves = _leaves(result)
    et = etypes.dtype_to_etype(leaves[0].dtype)
    if etypes.is_float(et) or etypes.is_complex(et):
        masks = [subnormal_mask(leaf, *(np.asarray(_leaves(m)[k]) for m in members)) for k, leaf in enumerate(leaves)]
        acc = flush_subnormals(members[0])
        for m in members[1:]:
            acc = flush_subnormals(_fold(ctx, comp, [acc, flush_subnormals(m)]))
        table["subnormals"] = _per_leaf(operand, masks, {"flush": _leaves(acc)})
    return table


def _per_leaf(operand: Any, masks: list[np.ndarray], outcomes: dict[str, list[Any]]) -> Allowed:
    """An Allowed over the operand's result: one mask and outcome per array of a tuple result."""
    if isinstance(operand, tuple):
        return Allowed(tuple(masks), {k: tuple(v) for k, v in outcomes.items()})
    return Allowed(masks[0], {k: v[0] for k, v in outcomes.items()})


def _order(ctx: EvaluatorContext, comp: XlaComputation, members: list[Any], result: Any) -> Allowed | None:
    """``reduction_order``: a float or complex Add (or a float Mul) over a group of three or more devices may
    combine them in any order and association, each step rounded (see ``reassociation_allowed``; a complex Add
    is two real ones, bounded part by part; a part whose exact value is not finite must be the same)."""
    reducer = binary_reducer_name(comp)
    et = etypes.dtype_to_etype(_leaves(result)[0].dtype)
    complex_add = etypes.is_complex(et) and reducer == "add"
    if len(members) < 3 or not (complex_add or (etypes.is_float(et) and reducer in ("add", "mul"))):
        return None
    parts = [np.real, np.imag] if complex_add else [lambda x: x]
    masks, checks = [], []
    for k, leaf in enumerate(_leaves(result)):
        stack = np.stack([np.asarray(_leaves(m)[k]) for m in members])
        bounded = []
        for part in parts:
            with np.errstate(all="ignore"):
                exact = part(leaf).astype(np.float64)
                magnitude = np.abs(part(stack).astype(np.float64)).sum(0) if reducer == "add" else None
            bounded.append((part, reassociation_allowed(reducer, np.real(leaf).dtype, len(members), exact, magnitude)))
        masks.append(np.logical_or.reduce([a.mask for _, a in bounded]))
        checks.append(_every_part(bounded))
    return _per_leaf(result, masks, {"any_order": checks})


def _every_part(bounded: list[tuple[Any, Allowed]]) -> Any:
    """Every part within its bound where the bound applies, the same as expected where it does not."""
    def within(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        ok = []
        for part, allowed in bounded:
            a, e = part(np.asarray(actual)), part(np.asarray(expected))
            with np.errstate(all="ignore"):
                same = (a == e) | (np.isnan(a) & np.isnan(e))
            ok.append(np.where(allowed.mask, allowed.outcomes["any_order"](a, e), same))
        return np.logical_and.reduce(ok)
    return within


@implementation_defined("AllReduce")
def all_reduce_outcomes(ctx: EvaluatorContext, operand: Any) -> dict[str, Allowed]:
    return _outcomes(ctx, operand, ctx.attr("computation"))


@implementation_defined("CrossReplicaSum")
def cross_replica_sum_outcomes(ctx: EvaluatorContext, operand: Any) -> dict[str, Allowed]:
    return _outcomes(ctx, operand, add_computation(etypes.dtype_to_etype(_leaves(operand)[0].dtype)))


@evaluator("ReplicaId")
def replica_id(ctx: EvaluatorContext) -> np.ndarray:
    return np.asarray(ctx.devices.replica_id, np.uint32)


@evaluator("PartitionId")
def partition_id(ctx: EvaluatorContext) -> np.ndarray:
    return np.asarray(ctx.devices.partition_id, np.uint32)
