"""jax lowerings of the conversion ops."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.jax_backend import LoweringContext, limitation, lowering


@lowering("ConvertElementType")
def convert_element_type(ctx: LoweringContext, operand: Any) -> Any:
    dtype = etypes.etype_to_dtype(ctx.attr("new_element_type"))
    if etypes.is_complex(etypes.dtype_to_etype(operand.dtype)) and not etypes.is_complex(ctx.attr("new_element_type")):
        operand = lax.real(operand)  # as XlaBuilder does: complex -> real keeps the real part
    out = convert_float(operand, dtype)
    if ctx.attr("new_element_type") == PrimitiveType.F8E8M0FNU:
        # E8M0 holds only positive values: zero and negative values become NaN (compiled code does
        # this; XLA's constant folder gave the smallest value or a power of two of |x| instead)
        out = lax.select(lax.gt(operand, lax.full_like(operand, 0)), out, lax.full_like(out, np.nan))
    return out


def convert_float(operand: Any, dtype: Any) -> Any:
    """lax.convert_element_type; into f4e2m1fn (no infinity, no NaN) with the out-of-range values
    mapped first as compiled code maps them (+-inf -> +-6, NaN -> -0), because XLA's constant
    folder turned them into 0."""
    if np.dtype(dtype) == np.dtype(ml_dtypes.float4_e2m1fn) and jnp.issubdtype(operand.dtype, jnp.floating) \
            and np.dtype(operand.dtype) != np.dtype(dtype):
        limit = lax.full_like(operand, 6)
        clamped = lax.clamp(lax.neg(limit), operand, limit)
        operand = lax.select(lax.ne(operand, operand), lax.full_like(operand, -0.0), clamped)
    return lax.convert_element_type(operand, dtype)


@lowering("BitcastConvertType")
def bitcast_convert_type(ctx: LoweringContext, operand: Any) -> Any:
    target = etypes.etype_to_dtype(ctx.attr("new_element_type"))
    source_bits, target_bits = _bits(operand.dtype), _bits(target)
    if target_bits < 8 and source_bits > target_bits:
        return _split_into_sub_byte(operand, target, source_bits, target_bits)
    return lax.bitcast_convert_type(operand, target)


_UNSIGNED = {2: jnp.uint2, 4: jnp.uint4, 8: jnp.uint8, 16: jnp.uint16, 32: jnp.uint32, 64: jnp.uint64}


def _bits(dtype: Any) -> int:
    return etypes.bit_width(etypes.dtype_to_etype(np.dtype(dtype)))


def _split_into_sub_byte(operand: Any, target: Any, source_bits: int, target_bits: int) -> Any:
    """A bitcast to a type narrower than a byte, spelled out with shifts (lowest bits first).

    lax.bitcast_convert_type gives this in compiled code, but XLA's constant folder packs
    sub-byte values differently, so a constant operand gave another result.
    """
    bits = lax.bitcast_convert_type(operand, _UNSIGNED[source_bits])
    mask = lax.full_like(bits, (1 << target_bits) - 1)
    parts = [lax.bitwise_and(lax.shift_right_logical(bits, lax.full_like(bits, k * target_bits)), mask)
             for k in range(source_bits // target_bits)]
    narrow = [lax.convert_element_type(p, _UNSIGNED[target_bits]) for p in parts]
    return lax.bitcast_convert_type(jnp.stack(narrow, axis=-1), target)


@lowering("ReducePrecision")
def reduce_precision(ctx: LoweringContext, operand: Any) -> Any:
    return lax.reduce_precision(operand, exponent_bits=ctx.attr("exponent_bits"),
                                mantissa_bits=ctx.attr("mantissa_bits"))


@limitation("BitcastConvertType")
def _bitcast_limit(inst: Any, operand_shapes: list[Any]) -> str | None:
    # StableHLO bitcasts between complex types of different widths; jax.lax.bitcast_convert_type does not.
    old, new = operand_shapes[0].element_type(), inst.shape.element_type()
    if etypes.is_complex(new) and old != new:
        return (f"jax.lax.bitcast_convert_type cannot bitcast {etypes.short_name(old)} to {etypes.short_name(new)} "
                "(complex values only to the same type)")
    if etypes.bit_width(new) == 2 and etypes.bit_width(old) >= 32:
        # XLA on CPU aborts the process compiling it (a 32- or 64-bit value split into 16 or 32 2-bit ones);
        # 8- and 16-bit types to 2 bits, and 2 bits to any width, run
        return (f"XLA aborts the process bitcasting {etypes.short_name(old)} to {etypes.short_name(new)} (a 32- or "
                "64-bit type to a 2-bit one; 8- and 16-bit types bitcast to 2 bits, and 4-bit types from any width)")
    return None
