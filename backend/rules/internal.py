"""Shape rules of the internal HLO instructions: AddDependency, Bitcast, Copy, CopyStart, CopyDone, Domain,
Fusion, AsyncStart, AsyncUpdate, AsyncDone, the collective Start/Done pairs, RngGetAndUpdateState.

The asynchronous pairs carry XLA's shapes: CopyStart gives ``(result, operand, u32[] context)``,
AsyncStart ``((operands...), result, u32[] context)``, AllGatherStart ``(operand, result)``,
CollectivePermuteStart ``(operand, result, u32[], u32[])``, AllReduceStart the result itself; each Done
takes its Start's shape and gives the result.
"""

from __future__ import annotations

from typing import Any

from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape, physical_size
from backend.rules import OpContext, array_operand, shape_rule
from backend.rules.collectives import mode_of
from backend.rules.control_flow import _check_call
from backend.rules.reduction import check_computation

CONTEXT = Shape.scalar_shape(PrimitiveType.U32)
FUSION_KINDS = ("kLoop", "kInput", "kOutput", "kCustom")


@shape_rule("AddDependency")
def add_dependency(ctx: OpContext) -> Shape:
    token = ctx.shape("token")
    if not token.is_token():
        raise ctx.fail("C1", f"'token' must be a token, got {token}", "token", token=str(token))
    return ctx.shape("operand")


@shape_rule("Bitcast")
def bitcast(ctx: OpContext) -> Shape:
    operand, shape = array_operand(ctx, "operand", "C1"), ctx.attr("shape")
    if not shape.is_array():
        raise ctx.fail("C1", f"'shape' must be an array shape, got {shape}", "shape", shape=str(shape))
    if shape.element_type() != operand.element_type():
        raise ctx.fail("C2", f"the element type must stay {operand}'s, got {shape}", "shape",
                       operand=str(operand), shape=str(shape))
    if physical_size(shape) != physical_size(operand):
        raise ctx.fail("C3", f"{shape.to_string()} holds {physical_size(shape)} elements in memory, the operand "
                       f"{operand.to_string()} {physical_size(operand)}", "shape",
                       operand=operand.to_string(), shape=shape.to_string())
    if any(shape.is_dynamic_dimension(d) for d in range(shape.rank())) or any(
            operand.is_dynamic_dimension(d) for d in range(operand.rank())):
        raise ctx.fail("C4", "a bitcast reinterprets static memory: neither shape may have dynamic dimensions",
                       "shape", operand=str(operand), shape=str(shape))
    return shape.with_major_to_minor_layout_if_absent()


@shape_rule("Copy", "Domain")
def identity(ctx: OpContext) -> Shape:
    if ctx.op == "Domain" and not ctx.attr("kind"):
        raise ctx.fail("C1", "the domain's kind must be a non-empty name (e.g. 'sharding')", "kind",
                       kind=ctx.attr("kind"))
    return ctx.shape("operand")


@shape_rule("CopyStart")
def copy_start(ctx: OpContext) -> Shape:
    operand = array_operand(ctx, "operand", "C1")
    return Shape.tuple_shape([operand, operand, CONTEXT])


@shape_rule("CopyDone")
def copy_done(ctx: OpContext) -> Shape:
    got = ctx.shape("operand")
    parts = got.tuple_shapes() if got.is_tuple() else ()
    if len(parts) != 3 or not parts[0].is_array() or parts[1] != parts[0] or parts[2] != CONTEXT:
        raise ctx.fail("C1", f"operand must be a CopyStart's result (S, S, u32[]) with S an array, got {got}",
                       "operand", operand=str(got))
    return parts[0]


@shape_rule("Fusion")
def fusion(ctx: OpContext) -> Shape:
    if ctx.attr("kind") not in FUSION_KINDS:
        raise ctx.fail("C3", f"kind must be one of {', '.join(FUSION_KINDS)}, got {ctx.attr('kind')!r}", "kind",
                       kind=ctx.attr("kind"))
    return _check_call(ctx, ctx.attr("fused_computation"), ctx.shape("operands"), "operands", "C1", "C2")


@shape_rule("AsyncStart")
def async_start(ctx: OpContext) -> Shape:
    operands = ctx.shape("operands")
    result = _check_call(ctx, ctx.attr("computation"), operands, "operands", "C1", "C2")
    return Shape.tuple_shape([Shape.tuple_shape(operands), result, CONTEXT])


def _async_state(ctx: OpContext) -> Shape:
    got = ctx.shape("operand")
    parts = got.tuple_shapes() if got.is_tuple() else ()
    if len(parts) != 3 or not parts[0].is_tuple() or parts[2] != CONTEXT:
        raise ctx.fail("C1", f"operand must be an AsyncStart's result ((operands...), result, u32[]), got {got}",
                       "operand", operand=str(got))
    return got


@shape_rule("AsyncUpdate")
def async_update(ctx: OpContext) -> Shape:
    return _async_state(ctx)


@shape_rule("AsyncDone")
def async_done(ctx: OpContext) -> Shape:
    return _async_state(ctx).tuple_shapes()[1]


# -- the collective Start/Done pairs ------------------------------------------------------------
@shape_rule("AllReduceStart")
def all_reduce_start(ctx: OpContext) -> Shape:
    operand = array_operand(ctx, "operand", "C1")
    t = operand.element_type()
    check_computation(ctx, "computation", [t, t], [t], "C2")
    mode_of(ctx, "C3")
    return operand


@shape_rule("AllReduceDone")
def all_reduce_done(ctx: OpContext) -> Shape:
    return array_operand(ctx, "operand", "C1")


@shape_rule("AllGatherStart")
def all_gather_start(ctx: OpContext) -> Shape:
    operand = array_operand(ctx, "operand", "C1")
    dim, count = ctx.attr("all_gather_dimension"), ctx.attr("shard_count")
    if not 0 <= dim < operand.rank():
        raise ctx.fail("C2", f"all_gather_dimension {dim} is not a dimension of {operand} (rank {operand.rank()})",
                       "all_gather_dimension", all_gather_dimension=dim, rank=operand.rank())
    if count < 1:
        raise ctx.fail("C3", f"shard_count must be >= 1, got {count}", "shard_count", shard_count=count)
    groups = ctx.attr("replica_groups")
    if groups and any(len(g.replica_ids) != count for g in groups):
        raise ctx.fail("C3", f"shard_count {count} must be the size of every replica group, got sizes "
                       f"{[len(g.replica_ids) for g in groups]}", "shard_count", shard_count=count)
    mode_of(ctx, "C4")
    dims = list(operand.dimensions())
    dims[dim] *= count
    return Shape.tuple_shape([operand, Shape.array_shape(operand.element_type(), dims)])


def _gathered(ctx: OpContext) -> Any:
    got = ctx.shape("operand")
    parts = got.tuple_shapes() if got.is_tuple() else ()
    if len(parts) != 2 or not all(p.is_array() for p in parts):
        raise ctx.fail("C1", f"operand must be an AllGatherStart's result (operand, result), got {got}",
                       "operand", operand=str(got))
    return parts[1]


@shape_rule("AllGatherDone")
def all_gather_done(ctx: OpContext) -> Shape:
    return _gathered(ctx)


@shape_rule("CollectivePermuteStart")
def collective_permute_start(ctx: OpContext) -> Shape:
    operand = array_operand(ctx, "operand", "C1")
    pairs = ctx.attr("source_target_pairs")
    for role, k in (("source", 0), ("target", 1)):
        ids = [p[k] for p in pairs]
        negative = [i for i in ids if i < 0]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if negative or twice:
            raise ctx.fail("C2", f"{role} ids must be >= 0 and appear once each, got {ids}", "source_target_pairs",
                           **{f"{role}s": ids})
    return Shape.tuple_shape([operand, operand, CONTEXT, CONTEXT])


@shape_rule("CollectivePermuteDone")
def collective_permute_done(ctx: OpContext) -> Shape:
    got = ctx.shape("operand")
    parts = got.tuple_shapes() if got.is_tuple() else ()
    if len(parts) != 4 or not parts[0].is_array() or parts[1] != parts[0] or parts[2:] != (CONTEXT, CONTEXT):
        raise ctx.fail("C1", f"operand must be a CollectivePermuteStart's result (S, S, u32[], u32[]), got {got}",
                       "operand", operand=str(got))
    return parts[1]


@shape_rule("RngGetAndUpdateState")
def rng_get_and_update_state(ctx: OpContext) -> Shape:
    delta = ctx.attr("delta")
    if delta < 0:
        raise ctx.fail("C1", f"delta must be >= 0 (the state only advances), got {delta}", "delta", delta=delta)
    return Shape.array_shape(PrimitiveType.U64, (2,))
