"""jax lowerings of the comparison and selection ops: Compare and its named forms, Select, Clamp.

FLOAT/SIGNED/UNSIGNED comparisons are ``lax.eq`` ... ``lax.lt``. TOTALORDER comparisons of floats
compare integer keys that order as the total order does (:func:`total_order_key`), so that constant
operands and parameters give the same result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from backend.hlo.attribute_types import ComparisonDirection, ComparisonType
from backend.jax_backend import LoweringContext, lowering
from backend.rules.comparison import NAMED_COMPARISONS

D = ComparisonDirection
_FUNCTIONS: dict[ComparisonDirection, Callable[[Any, Any], Any]] = {
    D.EQ: lax.eq, D.NE: lax.ne, D.GE: lax.ge, D.GT: lax.gt, D.LE: lax.le, D.LT: lax.lt,
}


_SIGNED_BY_BITS = {4: jnp.int4, 8: jnp.int8, 16: jnp.int16, 32: jnp.int32, 64: jnp.int64}
_UNSIGNED_BY_BITS = {4: jnp.uint4, 8: jnp.uint8, 16: jnp.uint16, 32: jnp.uint32, 64: jnp.uint64}


def total_order_key(x: Any) -> Any:
    """Integers that order as ``x``'s floats do in the total order: -NaN < -inf < ... < -0 < +0 < ... < NaN.

    The sign-magnitude bit pattern becomes two's complement (the magnitude bits of negative values
    are flipped). Comparing these keys, rather than binding an HLO compare of type TOTALORDER, gives
    the same result in compiled code and in XLA's constant folder, which ignores the comparison type
    (it found -0.0 < +0.0 false and NaN == NaN false for constant operands).
    """
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return x
    bits = jnp.finfo(x.dtype).bits
    if np.dtype(x.dtype).name == "float8_e8m0fnu":  # no sign bit: the bits order as unsigned
        return lax.bitcast_convert_type(x, _UNSIGNED_BY_BITS[bits])
    i = lax.bitcast_convert_type(x, _SIGNED_BY_BITS[bits])
    magnitude = lax.full_like(i, (1 << (bits - 1)) - 1)
    key = lax.select(lax.lt(i, lax.full_like(i, 0)), lax.bitwise_xor(i, magnitude), i)
    if "fnuz" in np.dtype(x.dtype).name:
        # the single NaN has the bit pattern of -0 (0x80) and orders below every other value, as XLA
        # orders it: in a wider key, below the key of the most negative number
        wide = lax.convert_element_type(key, jnp.int16)
        nan = lax.eq(i, lax.full_like(i, -(1 << (bits - 1))))
        return lax.select(nan, lax.full_like(wide, -(1 << 15)), wide)
    return key


def _total_order(compare: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def fn(a: Any, b: Any) -> Any:
        return compare(total_order_key(a), total_order_key(b))
    return fn


_TOTAL_ORDER_FUNCTIONS = {direction: _total_order(fn) for direction, fn in _FUNCTIONS.items()}


def compare_arrays(lhs: Any, rhs: Any, direction: ComparisonDirection, compare_type: ComparisonType | None) -> Any:
    table = _TOTAL_ORDER_FUNCTIONS if compare_type == ComparisonType.TOTALORDER else _FUNCTIONS
    return table[direction](lhs, rhs)


@lowering("Compare")
def compare(ctx: LoweringContext, lhs: Any, rhs: Any) -> Any:
    return compare_arrays(lhs, rhs, ctx.attr("direction"), ctx.attr("compare_type"))


def _register_named(op: str, direction: ComparisonDirection, compare_type: ComparisonType | None) -> None:
    def named(ctx: LoweringContext, lhs: Any, rhs: Any) -> Any:
        return compare_arrays(lhs, rhs, direction, compare_type)

    named.__name__ = named.__qualname__ = op
    lowering(op)(named)


for _op, (_direction, _ctype) in NAMED_COMPARISONS.items():
    _register_named(_op, _direction, _ctype)


@lowering("Select")
def select(ctx: LoweringContext, pred: Any, on_true: Any, on_false: Any) -> Any:
    return lax.select(pred, on_true, on_false)


@lowering("Clamp")
def clamp(ctx: LoweringContext, min_: Any, operand: Any, max_: Any) -> Any:
    return lax.clamp(min_, operand, max_)
