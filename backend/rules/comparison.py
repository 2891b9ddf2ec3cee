"""Shape rules of the comparison and selection ops: Compare, Select, Clamp.

Eq, Ne, Ge, Gt, Le, Lt and the *TotalOrder ops use ``binary_elementwise`` directly (their specs
name it). ``Compare`` reuses it and adds its own checks: C5 the comparison type fits the element
type, C6 a complex comparison is EQ or NE.
"""

from __future__ import annotations

from backend.hlo import etypes
from backend.hlo.attribute_types import ComparisonDirection, ComparisonType
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule
from backend.rules.elementwise import binary_elementwise, same_shape_dynamic_dimensions

_UNORDERED_DIRECTIONS = (ComparisonDirection.EQ, ComparisonDirection.NE)
#: The named comparison ops (Eq ... LtTotalOrder): their direction and comparison type (None: the
#: element type's natural one). Their shape rule is ``binary_elementwise``.
NAMED_COMPARISONS: dict[str, tuple[ComparisonDirection, ComparisonType | None]] = {
    **{d.value.capitalize(): (d, None) for d in ComparisonDirection},
    **{d.value.capitalize() + "TotalOrder": (d, ComparisonType.TOTALORDER) for d in ComparisonDirection},
}


def allowed_comparison_types(etype: PrimitiveType) -> tuple[ComparisonType, ...]:
    """The comparison types that fit an element type; the first is the natural (default) one."""
    if etypes.is_float(etype):
        return (ComparisonType.FLOAT, ComparisonType.TOTALORDER)
    if etypes.is_complex(etype):
        return (ComparisonType.FLOAT,)
    if etypes.is_signed_int(etype):
        return (ComparisonType.SIGNED,)
    return (ComparisonType.UNSIGNED,)  # unsigned integers and PRED


def effective_comparison_type(etype: PrimitiveType, compare_type: ComparisonType | None) -> ComparisonType:
    """``compare_type``, or the natural one for ``etype`` when it is None."""
    return allowed_comparison_types(etype)[0] if compare_type is None else compare_type


@shape_rule("Compare")
def compare(ctx: OpContext) -> Shape:
    result = binary_elementwise(ctx)
    etype = ctx.shape("lhs").element_type()
    direction = ctx.attr("direction")
    compare_type = ctx.attr("compare_type")
    allowed = allowed_comparison_types(etype)
    if compare_type is not None and compare_type not in allowed:
        names = ", ".join(t.value for t in allowed)
        raise ctx.fail("C5", f"compare_type {compare_type.value} does not fit element type "
                       f"{etypes.short_name(etype)} (allowed: {names})", "compare_type",
                       compare_type=compare_type.value, element_type=etypes.short_name(etype))
    if etypes.is_complex(etype) and direction not in _UNORDERED_DIRECTIONS:
        raise ctx.fail("C6", f"complex operands ({etypes.short_name(etype)}) can only be compared with EQ or NE, "
                       f"got {direction.value}", "direction", direction=direction.value,
                       element_type=etypes.short_name(etype))
    return result


@shape_rule("Select")
def select(ctx: OpContext) -> Shape:
    pred, on_true, on_false = ctx.shape("pred"), ctx.shape("on_true"), ctx.shape("on_false")
    if on_true.dimensions() != on_false.dimensions():
        raise ctx.fail("C2", f"on_true and on_false must have the same shape, got {on_true} and {on_false}",
                       "on_false", on_true=str(on_true), on_false=str(on_false))
    if pred.rank() != 0 and pred.dimensions() != on_true.dimensions():
        raise ctx.fail("C3", f"pred must be a scalar or have the shape of on_true {list(on_true.dimensions())}, "
                       f"got {pred}", "pred", pred=str(pred), on_true=str(on_true))
    return Shape.array_shape(on_true.element_type(), on_true.dimensions(), dynamic_dimensions=
                             same_shape_dynamic_dimensions(on_true, pred, on_true, on_false))


@shape_rule("Clamp")
def clamp(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    for constraint, name in (("C2", "min"), ("C3", "max")):
        bound = ctx.shape(name)
        if bound.rank() != 0 and bound.dimensions() != operand.dimensions():
            raise ctx.fail(constraint, f"{name} must be a scalar or have the shape of operand "
                           f"{list(operand.dimensions())}, got {bound}", name, **{name: str(bound)},
                           operand=str(operand))
    return Shape.array_shape(operand.element_type(), operand.dimensions(), dynamic_dimensions=
                             same_shape_dynamic_dimensions(operand, operand, ctx.shape("min"), ctx.shape("max")))
