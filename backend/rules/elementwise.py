"""Shape rules of the element-wise families.

The shared rules fix the constraint ids their specs use:

* ``unary_elementwise``: C1 the operand's element type (the spec's ``type_constraint``).
* ``binary_elementwise``: C1 element types; C2 ``broadcast_dimensions`` has the wrong length,
  is out of range, or is not the identity for same-rank operands; C3 it is not strictly
  increasing; C4 the dimension sizes are incompatible.
"""

from __future__ import annotations

from backend.hlo import broadcasting, etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape, broadcast_dynamic_dimensions
from backend.rules import OpContext, shape_rule

BINARY_CONSTRAINTS = {"dims_length": "C2", "dims_range": "C2", "same_rank_dims": "C2", "dims_order": "C3",
                      "incompatible": "C4"}

_COMPLEX_OF = {PrimitiveType.F32: PrimitiveType.C64, PrimitiveType.F64: PrimitiveType.C128}
_REAL_OF = {PrimitiveType.C64: PrimitiveType.F32, PrimitiveType.C128: PrimitiveType.F64}


def result_element_type(ctx: OpContext, operand_type: PrimitiveType) -> PrimitiveType:
    """The result element type the spec's ``result.element`` names, given the operands' type.

    ``T`` (a type variable): the operands' type; a type name (``pred``): that type;
    ``complex_of(T)`` / ``real_of(T)``: the complex type with T as parts / a complex type's part type
    (a real type stays itself).
    """
    name = str(ctx.spec.result.get("element", "T"))
    if name in ctx.spec.element_types:
        return operand_type
    if name.startswith("complex_of("):
        return _COMPLEX_OF[operand_type]
    if name.startswith("real_of("):
        return _REAL_OF.get(operand_type, operand_type)
    return etypes.from_short_name(name)


@shape_rule("unary_elementwise")
def unary_elementwise(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    return Shape.array_shape(result_element_type(ctx, operand.element_type()), operand.dimensions(),
                             dynamic_dimensions=operand.dynamic_dimensions())


@shape_rule("binary_elementwise")
def binary_elementwise(ctx: OpContext) -> Shape:
    lhs, rhs = ctx.shape("lhs"), ctx.shape("rhs")
    bdims = ctx.attrs.get("broadcast_dimensions", ())
    try:
        dims = broadcasting.binary_result_dims(lhs.dimensions(), rhs.dimensions(), bdims)
    except broadcasting.BroadcastError as e:
        raise ctx.fail(BINARY_CONSTRAINTS[e.rule], str(e), "broadcast_dimensions", lhs=str(lhs), rhs=str(rhs),
                       broadcast_dimensions=list(bdims)) from None
    dynamic = broadcast_dynamic_dimensions(dims, [(s, broadcasting.operand_placement(s.rank(), len(dims), bdims))
                                                  for s in (lhs, rhs)])
    return Shape.array_shape(result_element_type(ctx, lhs.element_type()), dims, dynamic_dimensions=dynamic)


def same_shape_dynamic_dimensions(result: Shape, *operands: Shape) -> tuple[bool, ...]:
    """The dynamism of an element-wise result whose operands have its dimensions (or are scalars)."""
    dims = result.dimensions()
    return broadcast_dynamic_dimensions(dims, [(s, range(s.rank())) for s in operands if s.rank() == len(dims)])
