"""jax lowerings of Dot and DotGeneral."""

from __future__ import annotations

from typing import Any

from jax import lax

from backend.hlo.attribute_types import PrecisionConfig
from backend.jax_backend import LoweringContext, lowering
from backend.rules.linear_algebra import dot_dimension_numbers


def lax_precision(config: PrecisionConfig | None) -> Any:
    if config is None or not config.operand_precision:
        return None
    return tuple(lax.Precision[p.name] for p in config.operand_precision)


def dot_arguments(ctx: LoweringContext, lhs: Any) -> dict[str, Any]:
    """dimension_numbers, precision and preferred_element_type as jax.lax.dot_general takes them."""
    dn = ctx.attrs.get("dimension_numbers") or dot_dimension_numbers(lhs.ndim)
    return {"dimension_numbers": dn.as_lax(), "precision": lax_precision(ctx.attrs.get("precision_config")),
            "preferred_element_type": ctx.shape.numpy_dtype()}


@lowering("DotGeneral", "Dot")
def dot_general(ctx: LoweringContext, lhs: Any, rhs: Any) -> Any:
    return lax.dot_general(lhs, rhs, **dot_arguments(ctx, lhs))
