"""Shape rules of ScaledDot and RaggedDot, built on DotGeneral's."""

from __future__ import annotations

from backend.hlo import etypes
from backend.hlo.attribute_types import DotDimensionNumbers, RaggedDotDimensionNumbers
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule
from backend.rules.linear_algebra import (
    check_dot_dimension_numbers,
    check_preferred_element_type,
    dot_general_dimensions,
)

#: RaggedDot's modes, by the kind of lhs's ragged dimension.
NON_CONTRACTING, CONTRACTING, BATCH = "non_contracting", "contracting", "batch"


@shape_rule("ScaledDot")
def scaled_dot(ctx: OpContext) -> Shape:
    lhs, rhs = ctx.shape("lhs"), ctx.shape("rhs")
    for side, shape in (("lhs", lhs), ("rhs", rhs)):
        scale = ctx.shape(f"{side}_scale")
        if scale.rank() != shape.rank():
            raise ctx.fail("C7", f"{side}_scale must have the rank of {side} ({shape.rank()}), got {scale}",
                           f"{side}_scale", **{side: str(shape), f"{side}_scale": str(scale)})
        for d, (size, blocks) in enumerate(zip(shape.dimensions(), scale.dimensions())):
            if not (blocks > 0 and size % blocks == 0) and not (blocks == 0 and size == 0):
                raise ctx.fail("C8", f"{side}_scale dimension {d} ({blocks}) must divide {side} dimension {d} "
                               f"({size}) into blocks of equal size", f"{side}_scale",
                               **{side: str(shape), f"{side}_scale": str(scale)})
    dn: DotDimensionNumbers = ctx.attr("dimension_numbers")
    check_dot_dimension_numbers(ctx, lhs, rhs, dn)
    preferred = ctx.attrs.get("preferred_element_type")
    if preferred is not None and not etypes.is_float(preferred):
        raise ctx.fail("C6", f"preferred_element_type must be a floating-point type, got "
                       f"{etypes.short_name(preferred)}", "preferred_element_type")
    return Shape.array_shape(preferred or lhs.element_type(), dot_general_dimensions(lhs, rhs, dn))


def ragged_mode(lhs_ragged: int, dn: DotDimensionNumbers) -> str:
    if lhs_ragged in dn.lhs_contracting_dimensions:
        return CONTRACTING
    if lhs_ragged in dn.lhs_batch_dimensions:
        return BATCH
    return NON_CONTRACTING


def rhs_without_group(rhs: Shape, group: int, dn: DotDimensionNumbers) -> tuple[Shape, DotDimensionNumbers]:
    """rhs with its group dimension dropped, and the dimension numbers renumbered to match."""
    def renumber(dims: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(d - (d > group) for d in dims)
    dims = [s for d, s in enumerate(rhs.dimensions()) if d != group]
    return (Shape.array_shape(rhs.element_type(), dims),
            DotDimensionNumbers(dn.lhs_contracting_dimensions, renumber(dn.rhs_contracting_dimensions),
                                dn.lhs_batch_dimensions, renumber(dn.rhs_batch_dimensions)))


@shape_rule("RaggedDot")
def ragged_dot(ctx: OpContext) -> Shape:
    lhs, rhs, group_sizes = ctx.shape("lhs"), ctx.shape("rhs"), ctx.shape("group_sizes")
    rdn: RaggedDotDimensionNumbers = ctx.attr("ragged_dot_dimension_numbers")
    dn = rdn.dot_dimension_numbers
    arg = "ragged_dot_dimension_numbers"
    check_dot_dimension_numbers(ctx, lhs, rhs, dn, arg)
    if len(rdn.lhs_ragged_dimensions) != 1 or not 0 <= rdn.lhs_ragged_dimensions[0] < lhs.rank():
        raise ctx.fail("C7", f"lhs needs exactly one ragged dimension, a dimension of lhs (rank {lhs.rank()}), got "
                       f"{list(rdn.lhs_ragged_dimensions)}", arg, lhs=str(lhs))
    ragged = rdn.lhs_ragged_dimensions[0]
    mode = ragged_mode(ragged, dn)
    groups = rdn.rhs_group_dimensions
    if mode == NON_CONTRACTING:
        if len(groups) != 1 or not 0 <= groups[0] < rhs.rank() \
                or groups[0] in dn.rhs_contracting_dimensions + dn.rhs_batch_dimensions:
            raise ctx.fail("C8", "a ragged non-contracting dimension needs exactly one rhs group dimension, a "
                           f"dimension of rhs (rank {rhs.rank()}) that is neither contracting nor batch, got "
                           f"{list(groups)}", arg, rhs=str(rhs))
        num_groups = rhs.dimensions()[groups[0]]
        dot_rhs, dot_dn = rhs_without_group(rhs, groups[0], dn)
    else:
        if groups:
            raise ctx.fail("C8", f"a ragged {mode} dimension takes no rhs group dimension, got {list(groups)}", arg)
        num_groups, dot_rhs, dot_dn = None, rhs, dn
    prefixes = [()] if mode == BATCH else [(), tuple(lhs.dimensions()[d] for d in dn.lhs_batch_dimensions)]
    sizes = tuple(group_sizes.dimensions())
    if not sizes or sizes[:-1] not in prefixes or (num_groups is not None and sizes[-1] != num_groups):
        wanted = " or ".join(str([*p, num_groups if num_groups is not None else "g"]) for p in prefixes)
        raise ctx.fail("C9", f"group_sizes must have shape {wanted} in the ragged {mode} mode, got {group_sizes}",
                       "group_sizes", group_sizes=str(group_sizes), lhs=str(lhs), rhs=str(rhs))
    etype = check_preferred_element_type(ctx, lhs.element_type(), "C6")
    dims = dot_general_dimensions(lhs, dot_rhs, dot_dn)
    return Shape.array_shape(etype, [sizes[-1]] + dims if mode == CONTRACTING else dims)
