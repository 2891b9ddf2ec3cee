"""jax lowerings of the convolution family: ``jax.lax.conv_general_dilated`` on the canonical
arguments, the window reversed with ``lax.rev`` first where window_reversal asks for it."""

from __future__ import annotations

from typing import Any

from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.linear_algebra import lax_precision
from backend.rules.convolution import CONV_OPS, general_arguments


def conv_arguments(ctx: LoweringContext, lhs: Any, rhs: Any) -> tuple[Any, dict[str, Any]]:
    """The (possibly reversed) kernel and the keyword arguments of ``lax.conv_general_dilated``."""
    args = general_arguments(ctx, lhs.shape, rhs.shape)
    dn = args.dimension_numbers
    reversed_dims = tuple(d for d, rev in zip(dn.kernel_spatial_dimensions, args.window_reversal) if rev)
    if reversed_dims:
        rhs = lax.rev(rhs, reversed_dims)
    spec = lax.ConvDimensionNumbers(
        lhs_spec=(dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions),
        rhs_spec=(dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
                  *dn.kernel_spatial_dimensions),
        out_spec=(dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions))
    return rhs, {
        "window_strides": args.window_strides, "padding": args.padding,
        "lhs_dilation": args.lhs_dilation, "rhs_dilation": args.rhs_dilation, "dimension_numbers": spec,
        "feature_group_count": args.feature_group_count, "batch_group_count": args.batch_group_count,
        "precision": lax_precision(args.precision_config), "preferred_element_type": ctx.shape.numpy_dtype()}


@lowering(*CONV_OPS)
def convolution(ctx: LoweringContext, lhs: Any, rhs: Any) -> Any:
    kernel, kwargs = conv_arguments(ctx, lhs, rhs)
    return lax.conv_general_dilated(lhs, kernel, **kwargs)
