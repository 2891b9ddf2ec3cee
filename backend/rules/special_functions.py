"""Shape rule of XLA's math-library functions of two or three operands.

``same_shape_elementwise``: Igamma, Igammac, IgammaGradA, RandomGammaGrad, Zeta and
RegularizedIncompleteBeta. XLA's math library requires their operands to have equal shapes
(no implicit broadcast, no ``broadcast_dimensions``). C1 is the element type (checked by the
builder from the spec's ``type_constraint``); C2 an operand whose dimensions differ from the
first operand's. The one-operand functions use the shared ``unary_elementwise`` rule.
"""

from __future__ import annotations

from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule
from backend.rules.elementwise import result_element_type, same_shape_dynamic_dimensions


@shape_rule("same_shape_elementwise")
def same_shape_elementwise(ctx: OpContext) -> Shape:
    names = [a.name for a in ctx.spec.operand_args]
    first = ctx.shape(names[0])
    for name in names[1:]:
        shape = ctx.shape(name)
        if shape.dimensions() != first.dimensions():
            raise ctx.fail("C2", f"{name} must have the shape of {names[0]} {list(first.dimensions())}, got {shape}",
                           name, **{names[0]: str(first), name: str(shape)})
    result = Shape.array_shape(result_element_type(ctx, first.element_type()), first.dimensions())
    return Shape.array_shape(result.element_type(), result.dimensions(), dynamic_dimensions=
                             same_shape_dynamic_dimensions(result, *(ctx.shape(n) for n in names)))
