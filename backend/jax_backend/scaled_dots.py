"""jax lowerings of ScaledDot (the operands times their blockwise scales, then lax.dot_general) and
RaggedDot (lax.ragged_dot_general)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from backend.hlo.attribute_types import RaggedDotDimensionNumbers
from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.linear_algebra import lax_precision


def scaled(operand: Any, scale: Any, dtype: Any) -> Any:
    """``operand * scale`` in ``dtype``, each scale element repeated over its block."""
    expanded = scale.astype(dtype)
    for d, (size, blocks) in enumerate(zip(operand.shape, scale.shape)):
        block = size // blocks if blocks else 0
        expanded = jnp.repeat(expanded, block, axis=d, total_repeat_length=size)
    return operand.astype(dtype) * expanded


@lowering("ScaledDot")
def scaled_dot(ctx: LoweringContext, lhs: Any, lhs_scale: Any, rhs: Any, rhs_scale: Any) -> Any:
    out = ctx.shape.numpy_dtype()
    # products of f8/f4/bf16/f16 values and power-of-two or 8-bit scales are exact in f32; f64 only when asked
    compute = np.dtype(np.float64) if out == np.float64 else np.dtype(np.float32)
    result = lax.dot_general(scaled(lhs, lhs_scale, compute), scaled(rhs, rhs_scale, compute),
                             ctx.attr("dimension_numbers").as_lax(),
                             precision=lax_precision(ctx.attrs.get("precision_config")),
                             preferred_element_type=compute)
    return result.astype(out)


@lowering("RaggedDot")
def ragged_dot(ctx: LoweringContext, lhs: Any, rhs: Any, group_sizes: Any) -> Any:
    rdn: RaggedDotDimensionNumbers = ctx.attr("ragged_dot_dimension_numbers")
    numbers = lax.RaggedDotDimensionNumbers(rdn.dot_dimension_numbers.as_lax(), rdn.lhs_ragged_dimensions,
                                            rdn.rhs_group_dimensions)
    return lax.ragged_dot_general(lhs, rhs, group_sizes.astype(jnp.int32), numbers,
                                  precision=lax_precision(ctx.attrs.get("precision_config")),
                                  preferred_element_type=ctx.shape.numpy_dtype())
