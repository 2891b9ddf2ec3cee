"""Shape rules of the collectives that exchange pieces: AllGather, ReduceScatter, AllToAll, RaggedAllToAll.

What the builder can check without a device count: dimensions, counts dividing them, the groups' sizes
against shard_count / split_count, use_global_device_ids without a channel_id, and the layout argument.
The groups against the device count are checked at execute time (backend/hlo/device_groups.py).
"""

from __future__ import annotations

from typing import Any

from backend.errors import OpError
from backend.hlo import device_groups
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Layout, Shape
from backend.rules import OpContext, array_operand, resized, shape_rule
from backend.rules.reduction import check_computation


def exchange_groups(op: str, attrs: dict[str, Any], replicas: int, partitions: int, size: int, size_name: str,
                    constraint: str) -> list[list[int]]:
    """The groups of global device ids of an AllGather, ReduceScatter, AllToAll or RaggedAllToAll at execute
    time (each in group order), checked against the device count: every group has ``size`` members
    (shard_count, split_count, the index arrays' size); any violation is an OpError with ``constraint``."""
    global_ids = attrs["use_global_device_ids"] if "use_global_device_ids" in attrs else device_groups.ABSENT
    mode = device_groups.group_mode(op, attrs["channel_id"], global_ids, constraint=constraint)
    groups = device_groups.device_groups(op, mode, attrs["replica_groups"], replicas, partitions,
                                       constraint=constraint, uniform=True)
    if len(groups[0]) != size:
        raise OpError(op, constraint, f"{size_name} is {size}, but the groups have {len(groups[0])} members "
                      f"({replicas} replicas x {partitions} partitions, group mode {mode.value})", "replica_groups",
                      {size_name: size, "group_size": len(groups[0]), "replicas": replicas,
                       "partitions": partitions})
    return groups


def _dimension(ctx: OpContext, name: str, rank: int, constraint: str) -> int:
    dim = ctx.attr(name)
    if not 0 <= dim < rank:
        raise ctx.fail(constraint, f"{name} {dim} is not a dimension of a rank-{rank} operand (0..{rank - 1})", name,
                       **{name: dim, "rank": rank})
    return dim


def _count(ctx: OpContext, name: str, constraint: str) -> int:
    count = ctx.attr(name)
    if count < 1:
        raise ctx.fail(constraint, f"{name} must be >= 1, got {count}", name, **{name: count})
    return count


def _group_sizes(ctx: OpContext, size: int, size_name: str, constraint: str) -> None:
    """Every group of replica_groups has ``size`` ids (empty replica_groups: checked at execute time). In
    cross-replica-and-partition mode (a channel_id, use_global_device_ids false) a group of replica ids spans
    every partition: the groups have one size, which divides ``size``."""
    groups = device_groups.group_ids(ctx.attr("replica_groups"))
    sizes = [len(g) for g in groups]
    spans_partitions = ctx.attrs.get("channel_id") is not None and "use_global_device_ids" in ctx.attrs \
        and not ctx.attr("use_global_device_ids")
    if spans_partitions and len(set(sizes)) <= 1 and (not sizes or size % sizes[0] == 0):
        return
    if any(s != size for s in sizes):
        extra = " (a multiple of one group size, with a channel_id: the groups span every partition)" \
            if spans_partitions else ""
        raise ctx.fail(constraint, f"every replica group must have {size_name} = {size} ids{extra}, got groups of "
                       f"sizes {sizes}", "replica_groups", replica_groups=groups, **{size_name: size})


def _check_mode(ctx: OpContext, constraint: str) -> None:
    """use_global_device_ids true needs a channel_id (XLA's group modes, one place: backend/hlo/device_groups.py)."""
    device_groups.group_mode(ctx.op, ctx.attr("channel_id"), ctx.attr("use_global_device_ids"), constraint=constraint)


def _with_layout(ctx: OpContext, result: Shape, constraint: str) -> Shape:
    """The result with ``layout`` (a Layout of its rank, or a Shape of its type and dimensions) applied."""
    layout: Any = ctx.attr("layout")
    if layout is None:
        return result
    if isinstance(layout, Shape):
        if not layout.is_array() or layout.element_type() != result.element_type() \
                or tuple(layout.dimensions()) != tuple(result.dimensions()):
            raise ctx.fail(constraint, f"layout {layout} must be a shape of the result {result}", "layout",
                           layout=str(layout), result=str(result))
        layout = layout.layout()
    if not isinstance(layout, Layout) or len(layout.minor_to_major) != result.rank():
        raise ctx.fail(constraint, f"layout {layout} must have one entry per dimension of the result {result}",
                       "layout", layout=str(layout), result=str(result))
    return Shape.array_shape(result.element_type(), result.dimensions(), layout)


@shape_rule("AllGather")
def all_gather(ctx: OpContext) -> Shape:
    operand = array_operand(ctx, "operand", "C1")
    dim = _dimension(ctx, "all_gather_dimension", operand.rank(), "C2")
    shards = _count(ctx, "shard_count", "C3")
    _group_sizes(ctx, shards, "shard_count", "C5")
    _check_mode(ctx, "C6")
    return _with_layout(ctx, resized(operand, dim, operand.dimensions()[dim] * shards), "C8")


def _reduce_scatter_one(ctx: OpContext, shape: Shape, label: str) -> Shape:
    if not shape.is_array():
        raise ctx.fail("C1", f"{label} must be an array, got {shape}", "operand", operand=str(shape))
    dim = _dimension(ctx, "scatter_dimension", shape.rank(), "C3")
    shards = ctx.attr("shard_count")
    size = shape.dimensions()[dim]
    if size % shards:
        raise ctx.fail("C5", f"shard_count {shards} does not divide the size {size} of scatter_dimension {dim} of "
                       f"{label} {shape}", "shard_count", shard_count=shards, size=size, operand=str(shape))
    return resized(shape, dim, size // shards)


@shape_rule("ReduceScatter")
def reduce_scatter(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    parts = list(operand.tuple_shapes()) if operand.is_tuple() else [operand]
    if not parts or any(not p.is_array() for p in parts):
        raise ctx.fail("C1", f"operand must be an array or a non-empty tuple of arrays, got {operand}", "operand",
                       operand=str(operand))
    types = {p.element_type() for p in parts}
    if len(types) > 1:
        raise ctx.fail("C1", f"the arrays of a tuple operand must have one element type, got {operand}", "operand",
                       operand=str(operand))
    etype: PrimitiveType = parts[0].element_type()
    check_computation(ctx, "computation", [etype, etype], [etype], "C2")
    _count(ctx, "shard_count", "C4")
    results = [_reduce_scatter_one(ctx, p, f"operand[{i}]" if operand.is_tuple() else "operand")
               for i, p in enumerate(parts)]
    _group_sizes(ctx, ctx.attr("shard_count"), "shard_count", "C7")
    _check_mode(ctx, "C8")
    if operand.is_tuple():
        if ctx.attr("layout") is not None:
            raise ctx.fail("C10", "layout applies to an array result, and operand is a tuple", "layout",
                           layout=str(ctx.attr("layout")), operand=str(operand))
        return Shape.tuple_shape(results)
    return _with_layout(ctx, results[0], "C10")


@shape_rule("AllToAll")
def all_to_all(ctx: OpContext) -> Shape:
    operand = array_operand(ctx, "operand", "C1")
    split = _dimension(ctx, "split_dimension", operand.rank(), "C2")
    concat = _dimension(ctx, "concat_dimension", operand.rank(), "C2")
    count = _count(ctx, "split_count", "C3")
    size = operand.dimensions()[split]
    if size % count:
        raise ctx.fail("C4", f"split_count {count} does not divide the size {size} of split_dimension {split}",
                       "split_count", split_count=count, size=size, operand=str(operand))
    _group_sizes(ctx, count, "split_count", "C6")
    result = resized(operand, split, size // count)
    result = resized(result, concat, result.dimensions()[concat] * count)
    return _with_layout(ctx, result, "C7")


_INDEX_ARGS = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")


@shape_rule("RaggedAllToAll")
def ragged_all_to_all(ctx: OpContext) -> Shape:
    data = {name: array_operand(ctx, name, "C1") for name in ("input", "output")}
    for name, shape in data.items():
        if shape.rank() < 1:
            raise ctx.fail("C2", f"'{name}' must have rank >= 1 (ragged along dimension 0), got {shape}", name,
                           **{name: str(shape)})
    if tuple(data["input"].dimensions()[1:]) != tuple(data["output"].dimensions()[1:]):
        raise ctx.fail("C2", f"input {data['input']} and output {data['output']} must have the same dimensions "
                       "after dimension 0 (the sub-element shape)", "output", input=str(data["input"]),
                       output=str(data["output"]))
    sizes = {}
    for name in _INDEX_ARGS:
        shape = array_operand(ctx, name, "C1")
        if shape.rank() != 1:
            raise ctx.fail("C3", f"'{name}' must be a rank-1 array, got {shape}", name, **{name: str(shape)})
        sizes[name] = shape.dimensions()[0]
    if len(set(sizes.values())) > 1:
        raise ctx.fail("C3", f"the index arrays must have the same size, got {sizes}", "recv_sizes", sizes=sizes)
    _group_sizes(ctx, sizes["input_offsets"], "the index arrays' size", "C5")
    return data["output"]
