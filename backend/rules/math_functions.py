"""Shape rules of the math-library functions that are not plain element-wise shapes.

The one-operand functions (Acos, Asin, ..., Square, Reciprocal) use the shared
``unary_elementwise`` rule. Here:

* ``Conj``: the result is complex: C64 for F32 and C64 operands, C128 for F64 and C128.
* ``NextAfter``: C1 the element types (checked by the builder); C2 ``from`` and ``to`` have the same
  dimensions (XLA's NextAfter selects between them element by element, with no implicit broadcast).
"""

from __future__ import annotations

from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule

_COMPLEX_RESULT = {PrimitiveType.F32: PrimitiveType.C64, PrimitiveType.C64: PrimitiveType.C64,
                   PrimitiveType.F64: PrimitiveType.C128, PrimitiveType.C128: PrimitiveType.C128}


@shape_rule("Conj")
def conj(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    return Shape.array_shape(_COMPLEX_RESULT[operand.element_type()], operand.dimensions(),
                             dynamic_dimensions=operand.dynamic_dimensions())


@shape_rule("NextAfter")
def next_after(ctx: OpContext) -> Shape:
    from_, to = ctx.shape("from"), ctx.shape("to")
    if from_.dimensions() != to.dimensions():
        raise ctx.fail("C2", f"'from' and 'to' must have the same dimensions, got {from_} and {to}", "to",
                       **{"from": str(from_), "to": str(to)})
    dynamic = tuple(a or b for a, b in zip(from_.dynamic_dimensions(), to.dynamic_dimensions()))
    return Shape.array_shape(from_.element_type(), from_.dimensions(), dynamic_dimensions=dynamic)
