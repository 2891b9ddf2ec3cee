"""jax lowerings of XLA's math-library functions (Acos ... Atanh, Sinh, Erfc, Square, Reciprocal,
Conj, NextAfter): each is its ``jax.lax`` function.

NextAfter is ``lax.nextafter`` (XLA's NextAfter: one step of the bit pattern below a sign bit), mended for the F8
types where that step is not the neighbour: the FNUZ types (XLA steps the negative smallest subnormal 0x81 toward
the positive side to 0x80, their one NaN, where the neighbour is 0) and F8E8M0FNU (no sign bit: its bit pattern
counts the powers of two up, so the neighbour is one pattern up or down).

Reciprocal is lowered as XLA builds it, 1 / x (``lax.reciprocal`` refuses integers, which XLA's
Reciprocal takes and divides like Div).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.binary import divide


def _reciprocal(operand: Any) -> Any:
    return divide(lax.full_like(operand, 1), operand)


def _conj(operand: Any) -> Any:
    """XLA builds Conj as Complex(Real(x), Neg(Imag(x))): a real x gets the imaginary part -0
    (``lax.conj`` would give +0)."""
    if jnp.iscomplexobj(operand):
        return lax.conj(operand)
    return lax.complex(operand, lax.neg(lax.full_like(operand, 0)))


_UNARY: dict[str, Callable[[Any], Any]] = {
    "Acos": lax.acos,
    "Asin": lax.asin,
    "Atan": lax.atan,
    "Acosh": lax.acosh,
    "Asinh": lax.asinh,
    "Atanh": lax.atanh,
    "Sinh": lax.sinh,
    "Erfc": lax.erfc,
    "Square": lax.square,
    "Reciprocal": _reciprocal,
    "Conj": _conj,
}


def _unary_lowering(fn: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def lower(ctx: LoweringContext, operand: Any) -> Any:
        return fn(operand)
    return lower


for _name, _fn in _UNARY.items():
    lowering(_name)(_unary_lowering(_fn))


_FNUZ = {np.dtype(t) for t in (ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz, ml_dtypes.float8_e4m3b11fnuz)}
_UNSIGNED_POWERS_OF_TWO = np.dtype(ml_dtypes.float8_e8m0fnu)


@lowering("NextAfter")
def next_after(ctx: LoweringContext, from_: Any, to: Any) -> Any:
    dtype = np.dtype(from_.dtype)
    if dtype == _UNSIGNED_POWERS_OF_TWO:
        return _next_power_of_two(from_, to)
    result = lax.nextafter(from_, to)
    if dtype in _FNUZ:  # XLA's step of -smallest subnormal toward the positive side lands on the NaN pattern 0x80
        stray = jnp.isnan(result) & ~jnp.isnan(from_) & ~jnp.isnan(to)
        result = jnp.where(stray, jnp.zeros_like(result), result)
    return result


def _next_power_of_two(from_: Any, to: Any) -> Any:
    """F8E8M0FNU's neighbour: its patterns 0x00..0xFE are 2^-127..2^127 in order (0xFF is NaN), so one pattern up
    toward a larger ``to``, one down toward a smaller one; ``to`` where they are equal, NaN where either is NaN."""
    bits = lax.bitcast_convert_type(from_, jnp.uint8)
    up = to.astype(jnp.float32) > from_.astype(jnp.float32)
    stepped = lax.bitcast_convert_type(jnp.where(up, bits + jnp.uint8(1), bits - jnp.uint8(1)), from_.dtype)
    nan = jnp.isnan(from_) | jnp.isnan(to)
    return jnp.where(nan, jnp.full_like(from_, jnp.nan), jnp.where(from_ == to, to, stepped))
