"""jax lowerings of the conversion ops."""

from __future__ import annotations

from typing import Any

from jax import lax

from backend import etypes
from backend.jax_backend import limitation, lowering


@lowering("ConvertElementType")
def convert_element_type(ctx: Any, operand: Any) -> Any:
    dtype = etypes.etype_to_dtype(ctx.attr("new_element_type"))
    if etypes.is_complex(etypes.dtype_to_etype(operand.dtype)) and not etypes.is_complex(ctx.attr("new_element_type")):
        operand = lax.real(operand)  # as XlaBuilder does: complex -> real keeps the real part
    return lax.convert_element_type(operand, dtype)


@lowering("BitcastConvertType")
def bitcast_convert_type(ctx: Any, operand: Any) -> Any:
    return lax.bitcast_convert_type(operand, etypes.etype_to_dtype(ctx.attr("new_element_type")))


@lowering("ReducePrecision")
def reduce_precision(ctx: Any, operand: Any) -> Any:
    return lax.reduce_precision(operand, exponent_bits=ctx.attr("exponent_bits"),
                                mantissa_bits=ctx.attr("mantissa_bits"))


@limitation("BitcastConvertType")
def _bitcast_limit(inst: Any, operand_shapes: list[Any]) -> str | None:
    # StableHLO bitcasts between complex types of different widths; jax.lax.bitcast_convert_type does not.
    old, new = operand_shapes[0].element_type(), inst.shape.element_type()
    if etypes.is_complex(new) and old != new:
        return (f"jax.lax.bitcast_convert_type cannot bitcast {etypes.short_name(old)} to {etypes.short_name(new)} "
                "(complex values only to the same type)")
    return None
