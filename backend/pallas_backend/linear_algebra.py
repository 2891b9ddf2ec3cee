"""Dot and DotGeneral through the Pallas DotGeneral kernel (falls back to lax with a logged reason)."""

from __future__ import annotations

from typing import Any

from backend.jax_backend import LoweringContext
from backend.jax_backend.linear_algebra import dot_arguments
from backend.pallas_backend import pallas_lowering


@pallas_lowering("DotGeneral", "Dot")
def dot_general(ctx: LoweringContext, lhs: Any, rhs: Any) -> Any:
    from pallas_kernels import dot_general as kernel

    return kernel(lhs, rhs, **dot_arguments(ctx, lhs))
