"""Shape rules of the creation ops: Parameter, Constant, Broadcast, BroadcastInDim."""

from __future__ import annotations

from backend.rules import OpContext, shape_rule
from backend.shape import Shape, shape_from_pyval


@shape_rule("Parameter")
def parameter(ctx: OpContext) -> Shape:
    number = ctx.attr("number")
    if number < 0:
        raise ctx.fail("C1", f"parameter number must be >= 0, got {number}", "number", number=number)
    if number in ctx.builder.parameter_numbers():
        raise ctx.fail("C2", f"parameter number {number} is already used in builder '{ctx.builder.name}'",
                       "number", number=number)
    return ctx.attr("shape")


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
    return Shape.array_shape(operand.element_type(), out)
