"""Shape rules of BatchNormTraining, BatchNormInference and BatchNormGrad.

All three share the checks: feature_index is a dimension of operand (C2), and every per-feature
argument is a rank-1 array as long as that dimension (C3). The element-type check (C1) is the
generic one of the builder.
"""

from __future__ import annotations

from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


def feature_size(ctx: OpContext, per_feature: tuple[str, ...]) -> int:
    """The size of operand's feature dimension, after checking feature_index and the per-feature arguments."""
    operand = ctx.shape("operand")
    index = ctx.attr("feature_index")
    if not 0 <= index < operand.rank():
        raise ctx.fail("C2", f"feature_index must be in [0, {operand.rank()}) for an operand of rank "
                       f"{operand.rank()}, got {index}", "feature_index", feature_index=index, operand=str(operand))
    size = operand.dimensions()[index]
    for name in per_feature:
        shape = ctx.shape(name)
        if shape.dimensions() != (size,):
            raise ctx.fail("C3", f"{name} must have shape [{size}] (the size of operand dimension {index}), "
                           f"got {shape}", name, **{name: str(shape), "operand": str(operand)})
    return size


@shape_rule("BatchNormTraining")
def batch_norm_training(ctx: OpContext) -> Shape:
    size = feature_size(ctx, ("scale", "offset"))
    operand = ctx.shape("operand")
    moments = Shape.array_shape(operand.element_type(), (size,))
    return Shape.tuple_shape([Shape.array_shape(operand.element_type(), operand.dimensions()), moments, moments])


@shape_rule("BatchNormInference")
def batch_norm_inference(ctx: OpContext) -> Shape:
    feature_size(ctx, ("scale", "offset", "mean", "variance"))
    operand = ctx.shape("operand")
    return Shape.array_shape(operand.element_type(), operand.dimensions())


@shape_rule("BatchNormGrad")
def batch_norm_grad(ctx: OpContext) -> Shape:
    size = feature_size(ctx, ("scale", "batch_mean", "batch_var"))
    operand, grad_output = ctx.shape("operand"), ctx.shape("grad_output")
    if grad_output.dimensions() != operand.dimensions():
        raise ctx.fail("C4", f"grad_output must have operand's shape {operand}, got {grad_output}", "grad_output",
                       operand=str(operand), grad_output=str(grad_output))
    per_feature = Shape.array_shape(operand.element_type(), (size,))
    return Shape.tuple_shape([Shape.array_shape(operand.element_type(), operand.dimensions()), per_feature,
                              per_feature])
