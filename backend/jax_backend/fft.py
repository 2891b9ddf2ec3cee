"""jax lowering of Fft: jax.lax.fft over the trailing axes that fft_length names."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.hlo.attribute_types import FftType
from backend.jax_backend import LoweringContext, lowering


@lowering("Fft")
def fft(ctx: LoweringContext, operand: Any) -> Any:
    if ctx.shape.element_count() == 0:
        return jnp.zeros(ctx.shape.dimensions(), ctx.shape.numpy_dtype())
    fft_type: FftType = ctx.attr("fft_type")
    return lax.fft(operand, lax.FftType[fft_type.name], tuple(ctx.attr("fft_length")))
