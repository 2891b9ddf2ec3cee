"""Shape rules of Dot and DotGeneral."""

from __future__ import annotations

from backend.hlo import etypes
from backend.hlo.attribute_types import DotDimensionNumbers
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


def check_preferred_element_type(ctx: OpContext, operand_type: PrimitiveType, constraint: str) -> PrimitiveType:
    preferred = ctx.attrs.get("preferred_element_type")
    if preferred is None:
        return operand_type
    ok = (etypes.is_float(operand_type) and (etypes.is_float(preferred) or etypes.is_complex(preferred))) \
        or (etypes.is_complex(operand_type) and etypes.is_complex(preferred)) \
        or (etypes.is_int(operand_type) and (etypes.is_int(preferred) or etypes.is_float(preferred)))
    if not ok:
        raise ctx.fail(constraint, f"preferred_element_type {etypes.short_name(preferred)} cannot hold the products "
                       f"of {etypes.short_name(operand_type)} operands", "preferred_element_type")
    # XLA's shape inference (MaybeUpcast): only floating-point operands may have a narrower preferred type.
    if not etypes.is_float(operand_type) and preferred != operand_type \
            and etypes.bit_width(preferred) < etypes.bit_width(operand_type):
        raise ctx.fail(constraint, f"preferred_element_type {etypes.short_name(preferred)} is narrower than the "
                       f"{etypes.short_name(operand_type)} operands ({etypes.bit_width(preferred)} < "
                       f"{etypes.bit_width(operand_type)} bits; only floating-point operands may narrow)",
                       "preferred_element_type")
    return preferred


def check_dot_dimension_numbers(ctx: OpContext, lhs: Shape, rhs: Shape, dn: DotDimensionNumbers,
                                arg: str = "dimension_numbers") -> None:
    """DotGeneral's constraints on its dimension numbers (C2 to C5), shared by the ops built on it."""
    sides = (("lhs", lhs, dn.lhs_contracting_dimensions, dn.lhs_batch_dimensions),
             ("rhs", rhs, dn.rhs_contracting_dimensions, dn.rhs_batch_dimensions))
    for side, shape, contracting, batch in sides:
        used = list(contracting) + list(batch)
        for d in used:
            if not 0 <= d < shape.rank():
                raise ctx.fail("C2", f"{side} dimension {d} is out of range for {side} of rank {shape.rank()}",
                               arg, **{side: str(shape)})
        if len(set(used)) != len(used):
            raise ctx.fail("C2", f"{side} contracting {list(contracting)} and batch {list(batch)} dimensions must "
                           "not repeat a dimension", arg)
    if len(dn.lhs_contracting_dimensions) != len(dn.rhs_contracting_dimensions) \
            or len(dn.lhs_batch_dimensions) != len(dn.rhs_batch_dimensions):
        raise ctx.fail("C3", f"lhs and rhs need as many contracting and batch dimensions each: {dn}", arg)
    for l_dim, r_dim in zip(dn.lhs_contracting_dimensions, dn.rhs_contracting_dimensions):
        if lhs.dimensions()[l_dim] != rhs.dimensions()[r_dim]:
            raise ctx.fail("C4", f"contracting dimension sizes differ: lhs dimension {l_dim} has size "
                           f"{lhs.dimensions()[l_dim]}, rhs dimension {r_dim} has {rhs.dimensions()[r_dim]}",
                           arg, lhs=str(lhs), rhs=str(rhs))
    for l_dim, r_dim in zip(dn.lhs_batch_dimensions, dn.rhs_batch_dimensions):
        if lhs.dimensions()[l_dim] != rhs.dimensions()[r_dim]:
            raise ctx.fail("C5", f"batch dimension sizes differ: lhs dimension {l_dim} has size "
                           f"{lhs.dimensions()[l_dim]}, rhs dimension {r_dim} has {rhs.dimensions()[r_dim]}",
                           arg, lhs=str(lhs), rhs=str(rhs))


def free_dimensions(rank: int, contracting: tuple[int, ...], batch: tuple[int, ...]) -> list[int]:
    """The dimensions of an operand that are neither contracting nor batch, in increasing order."""
    return [d for d in range(rank) if d not in contracting and d not in batch]


def dot_general_dimensions(lhs: Shape, rhs: Shape, dn: DotDimensionNumbers) -> list[int]:
    """DotGeneral's result dimensions: batch, then lhs's free dimensions, then rhs's."""
    return [lhs.dimensions()[d] for d in dn.lhs_batch_dimensions] \
        + [lhs.dimensions()[d] for d in free_dimensions(lhs.rank(), dn.lhs_contracting_dimensions,
                                                        dn.lhs_batch_dimensions)] \
        + [rhs.dimensions()[d] for d in free_dimensions(rhs.rank(), dn.rhs_contracting_dimensions,
                                                        dn.rhs_batch_dimensions)]


@shape_rule("DotGeneral")
def dot_general(ctx: OpContext) -> Shape:
    lhs, rhs = ctx.shape("lhs"), ctx.shape("rhs")
    dn: DotDimensionNumbers = ctx.attr("dimension_numbers")
    check_dot_dimension_numbers(ctx, lhs, rhs, dn)
    etype = check_preferred_element_type(ctx, lhs.element_type(), "C6")
    return Shape.array_shape(etype, dot_general_dimensions(lhs, rhs, dn))


def dot_dimension_numbers(lhs_rank: int) -> DotDimensionNumbers:
    """Dot as a DotGeneral: lhs's last dimension contracts with rhs's first."""
    return DotDimensionNumbers([lhs_rank - 1], [0]).frozen()


@shape_rule("Dot")
def dot(ctx: OpContext) -> Shape:
    lhs, rhs = ctx.shape("lhs"), ctx.shape("rhs")
    for side, shape in (("lhs", lhs), ("rhs", rhs)):
        if shape.rank() not in (1, 2):
            raise ctx.fail("C2", f"{side} must be a vector or a matrix, got {shape}", side, **{side: str(shape)})
    k_lhs, k_rhs = lhs.dimensions()[-1], rhs.dimensions()[0]
    if k_lhs != k_rhs:
        raise ctx.fail("C3", f"the last dimension of lhs ({k_lhs}) must equal the first dimension of rhs ({k_rhs})",
                       "rhs", lhs=str(lhs), rhs=str(rhs))
    etype = check_preferred_element_type(ctx, lhs.element_type(), "C4")
    return Shape.array_shape(etype, lhs.dimensions()[:-1] + rhs.dimensions()[1:])
