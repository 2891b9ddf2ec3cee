"""Shape rules of the one-operand element-wise ops that check more than the element type.

``unary_accuracy``: the ops with an optional ``result_accuracy`` (Exp, Log, Sin, ...). C1 is
the operand's element type (checked by the builder); C2 a tolerance with a negative ``atol``,
``rtol`` or ``ulps``.
"""

from __future__ import annotations

from backend.hlo.attribute_types import ResultAccuracyMode
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule
from backend.rules.elementwise import unary_elementwise


@shape_rule("unary_accuracy")
def unary_accuracy(ctx: OpContext) -> Shape:
    accuracy = ctx.attrs.get("result_accuracy")
    if accuracy is not None and accuracy.mode == ResultAccuracyMode.TOLERANCE:
        for field in ("atol", "rtol", "ulps"):
            value = getattr(accuracy, field)
            if value < 0:
                raise ctx.fail("C2", f"result_accuracy {field} must be >= 0, got {value}", "result_accuracy",
                               result_accuracy=str(accuracy))
    return unary_elementwise(ctx)
