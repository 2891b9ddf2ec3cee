"""Shape rules of the creation ops: Parameter, Constant, Iota, Tuple, GetTupleElement, Broadcast, BroadcastInDim."""

from __future__ import annotations

from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape, broadcast_dynamic_dimensions, shape_from_pyval
from backend.rules import OpContext, shape_rule


@shape_rule("Parameter")
def parameter(ctx: OpContext) -> Shape:
    number = ctx.attr("number")
    if number < 0:
        raise ctx.fail("C1", f"parameter number must be >= 0, got {number}", "number", number=number)
    if ctx.builder.has_parameter(number):
        raise ctx.fail("C2", f"parameter number {number} is already used in builder '{ctx.builder.name}'",
                       "number", number=number)
    shape = ctx.attr("shape")
    replicated = ctx.attr("replicated_at_leaf_buffers")
    leaves = _leaf_arrays(shape)
    if replicated and len(replicated) != leaves:
        raise ctx.fail("C3", f"replicated_at_leaf_buffers has {len(replicated)} entries; {shape} has {leaves} leaf "
                       "arrays (give one per leaf, or none)", "replicated_at_leaf_buffers",
                       replicated_at_leaf_buffers=list(replicated), shape=str(shape))
    return shape


def _leaf_arrays(shape: Shape) -> int:
    if shape.is_tuple():
        return sum(_leaf_arrays(s) for s in shape.tuple_shapes())
    return 1 if shape.is_array() else 0


@shape_rule("Constant")
def constant(ctx: OpContext) -> Shape:
    return shape_from_pyval(ctx.attr("literal"))


@shape_rule("BroadcastInDim")
def broadcast_in_dim(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    out = ctx.attr("out_dim_size")
    bdims = ctx.attr("broadcast_dimensions")
    if any(d < 0 for d in out):
        raise ctx.fail("C1", f"out_dim_size must be >= 0, got {list(out)}", "out_dim_size")
    if len(bdims) != operand.rank():
        raise ctx.fail("C2", f"broadcast_dimensions {list(bdims)} must have one entry per operand dimension "
                       f"(rank {operand.rank()})", "broadcast_dimensions")
    for d in bdims:
        if not 0 <= d < len(out):
            raise ctx.fail("C3", f"broadcast dimension {d} is out of range for output rank {len(out)}",
                           "broadcast_dimensions")
    if any(a >= b for a, b in zip(bdims, bdims[1:])):
        raise ctx.fail("C4", f"broadcast_dimensions must be strictly increasing, got {list(bdims)}",
                       "broadcast_dimensions")
    for i, d in enumerate(bdims):
        size = operand.dimensions()[i]
        if size not in (1, out[d]):
            raise ctx.fail("C5", f"operand dimension {i} has size {size}, which must be 1 or out_dim_size[{d}] = "
                           f"{out[d]}", "operand")
    return Shape.array_shape(operand.element_type(), out,
                             dynamic_dimensions=broadcast_dynamic_dimensions(out, [(operand, bdims)]))


@shape_rule("Iota")
def iota(ctx: OpContext) -> Shape:
    shape = ctx.attr("shape")
    if not shape.is_array() or shape.element_type() == PrimitiveType.PRED:
        raise ctx.fail("C1", f"shape must be an array shape of a numeric type, got {shape}", "shape", shape=str(shape))
    dim = ctx.attr("iota_dimension")
    if not 0 <= dim < shape.rank():
        raise ctx.fail("C2", f"iota_dimension {dim} is out of range for {shape} (rank {shape.rank()})",
                       "iota_dimension", iota_dimension=dim, shape=str(shape))
    return shape


@shape_rule("Tuple")
def tuple_(ctx: OpContext) -> Shape:
    return Shape.tuple_shape(ctx.shape("elements"))


@shape_rule("GetTupleElement")
def get_tuple_element(ctx: OpContext) -> Shape:
    data = ctx.shape("tuple_data")
    if not data.is_tuple():
        raise ctx.fail("C1", f"tuple_data must have a tuple shape, got {data}", "tuple_data", tuple_data=str(data))
    index, count = ctx.attr("index"), len(data.tuple_shapes())
    if not 0 <= index < count:
        raise ctx.fail("C2", f"index {index} is out of range for a tuple of {count} elements {data}", "index",
                       index=index, tuple_data=str(data))
    return data.tuple_shapes()[index]


@shape_rule("Broadcast")
def broadcast(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    sizes = ctx.attr("broadcast_sizes")
    if any(d < 0 for d in sizes):
        raise ctx.fail("C1", f"broadcast_sizes must be >= 0, got {list(sizes)}", "broadcast_sizes",
                       broadcast_sizes=list(sizes))
    return Shape.array_shape(operand.element_type(), tuple(sizes) + operand.dimensions(),
                             dynamic_dimensions=(False,) * len(sizes) + operand.dynamic_dimensions())
