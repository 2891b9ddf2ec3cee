"""Shape rules of the bounded-dynamic ops: GetDimensionSize, SetDimensionSize, DynamicReshape,
RemoveDynamicDimension.

The element-type checks (operand an array, size operands s32) are the builder's generic check,
reported under each spec's ``type_constraint`` (C1).
"""

from __future__ import annotations

import math

from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


def _check_dimension(ctx: OpContext, constraint: str) -> int:
    operand, dim = ctx.shape("operand"), ctx.attr("dimension")
    if not 0 <= dim < operand.rank():
        raise ctx.fail(constraint, f"dimension {dim} is out of range [0, {operand.rank()}) for {operand}",
                       "dimension", dimension=dim, operand=str(operand))
    return dim


def _with_dynamic(shape: Shape, dim: int, dynamic: bool) -> Shape:
    flags = list(shape.dynamic_dimensions())
    flags[dim] = dynamic
    return Shape.array_shape(shape.element_type(), shape.dimensions(), dynamic_dimensions=flags)


@shape_rule("GetDimensionSize")
def get_dimension_size(ctx: OpContext) -> Shape:
    _check_dimension(ctx, "C2")
    return Shape.scalar_shape(PrimitiveType.S32)


@shape_rule("SetDimensionSize")
def set_dimension_size(ctx: OpContext) -> Shape:
    val = ctx.shape("val")
    if val.rank() != 0:
        raise ctx.fail("C2", f"val must be an s32 scalar, got {val}", "val", val=str(val))
    dim = _check_dimension(ctx, "C3")
    return _with_dynamic(ctx.shape("operand"), dim, True)


@shape_rule("RemoveDynamicDimension")
def remove_dynamic_dimension(ctx: OpContext) -> Shape:
    dim = _check_dimension(ctx, "C2")
    return _with_dynamic(ctx.shape("operand"), dim, False)


@shape_rule("DynamicReshape")
def dynamic_reshape(ctx: OpContext) -> Shape:
    operand, sizes = ctx.shape("operand"), ctx.shape("dim_sizes")
    bounds, dynamic = ctx.attr("new_size_bounds"), ctx.attr("dims_are_dynamic")
    for i, s in enumerate(sizes):
        if s.rank() != 0:
            raise ctx.fail("C2", f"dim_sizes[{i}] must be an s32 scalar, got {s}", "dim_sizes",
                           dim_sizes=[str(x) for x in sizes])
    if len(sizes) != len(bounds):
        raise ctx.fail("C3", f"dim_sizes has {len(sizes)} entries, new_size_bounds {list(bounds)} has "
                       f"{len(bounds)}: one size per result dimension", "dim_sizes", new_size_bounds=list(bounds))
    if len(dynamic) != len(bounds):
        raise ctx.fail("C4", f"dims_are_dynamic {list(dynamic)} has {len(dynamic)} entries, new_size_bounds "
                       f"{list(bounds)} has {len(bounds)}", "dims_are_dynamic", dims_are_dynamic=list(dynamic))
    if any(b < 0 for b in bounds):
        raise ctx.fail("C5", f"new_size_bounds must be >= 0, got {list(bounds)}", "new_size_bounds",
                       new_size_bounds=list(bounds))
    count = math.prod(bounds)
    if count != operand.element_count():
        raise ctx.fail("C6", f"new_size_bounds {list(bounds)} hold {count} elements, the operand {operand} "
                       f"holds {operand.element_count()}", "new_size_bounds", new_size_bounds=list(bounds),
                       operand=str(operand))
    return Shape.array_shape(operand.element_type(), bounds, dynamic_dimensions=dynamic)
