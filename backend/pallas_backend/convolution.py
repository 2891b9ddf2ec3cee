"""The convolution family through the Pallas convolution kernel (falls back to lax with a logged
reason where the kernel does not cover a case)."""

from __future__ import annotations

from typing import Any

from backend.jax_backend import LoweringContext
from backend.jax_backend.convolution import conv_arguments
from backend.pallas_backend import pallas_lowering
from backend.rules.convolution import CONV_OPS


@pallas_lowering(*CONV_OPS)
def convolution(ctx: LoweringContext, lhs: Any, rhs: Any) -> Any:
    from pallas_kernels import conv_general_dilated as kernel

    rhs, kwargs = conv_arguments(ctx, lhs, rhs)
    return kernel(lhs, rhs, **kwargs)
