"""jax lowerings of the element-wise binary ops.

Each op maps onto its ``jax.lax`` function. Where lax refuses an element type that XLA's op
itself accepts (``lax.pow`` on integers), the op is emitted directly as the StableHLO
instruction ``lax`` would have produced, so that XLA's own behaviour is observed rather than an
emulation of it. PRED addition is the one exception: it is emitted as a logical OR, because
XLA's compiled code computes OR while its constant folder wraps 1-bit integers (1 + 1 = 0), so a
StableHLO ``add`` of two PRED constants would give XOR.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend.core import Primitive
from jax.interpreters import mlir
from jaxlib.mlir.dialects import stablehlo

from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.conversion import convert_float


def _stablehlo_binary(name: str, emit: Callable[[Any, Any], Any]) -> Primitive:
    """A primitive ``(x, y) -> x.dtype[x.shape]`` lowered to one StableHLO instruction."""
    prim = Primitive(f"xla_{name}")
    prim.def_abstract_eval(lambda x, y: jax.core.ShapedArray(x.shape, x.dtype))
    prim.def_impl(lambda x, y: jax.jit(prim.bind)(x, y))
    mlir.register_lowering(prim, lambda ctx, x, y: [emit(x, y)])
    return prim


_XLA_POWER = _stablehlo_binary("power", stablehlo.power)


def _is_pred(x: Any) -> bool:
    return np.dtype(x.dtype) == np.bool_


def _is_int(x: Any) -> bool:
    return bool(jnp.issubdtype(x.dtype, jnp.integer))


def _add(lhs: Any, rhs: Any) -> Any:
    return lax.bitwise_or(lhs, rhs) if _is_pred(lhs) else lax.add(lhs, rhs)  # PRED: see the module doc


def _safe_divisor(lhs: Any, rhs: Any) -> tuple[Any, Any]:
    """The divisor with 1 where XLA defines the result itself (x / 0, INT_MIN / -1), and the x / 0 mask.

    XLA's compiled code handles those elements, but its constant folder divides natively and
    crashes the process (SIGFPE) when the operands are constants: so they never reach a division.
    """
    zero = lax.eq(rhs, lax.full_like(rhs, 0))
    unsafe = zero
    if jnp.issubdtype(lhs.dtype, jnp.signedinteger):
        overflow = lax.bitwise_and(lax.eq(lhs, lax.full_like(lhs, jnp.iinfo(lhs.dtype).min)),
                                   lax.eq(rhs, lax.full_like(rhs, -1)))
        unsafe = lax.bitwise_or(zero, overflow)
    return lax.select(unsafe, lax.full_like(rhs, 1), rhs), zero


def divide(lhs: Any, rhs: Any) -> Any:
    """Integer x / 0 is -1 (all bits set), INT_MIN / -1 is INT_MIN (as XLA's compiled code gives)."""
    if jnp.issubdtype(lhs.dtype, jnp.floating) and jnp.finfo(lhs.dtype).bits < 8:
        # in f32, rounded once: the constant folder divided f4 values natively (6 / 0 gave 0, not 6)
        wide = lax.div(lax.convert_element_type(lhs, jnp.float32), lax.convert_element_type(rhs, jnp.float32))
        return convert_float(wide, lhs.dtype)
    if not _is_int(lhs):
        return lax.div(lhs, rhs)
    divisor, zero = _safe_divisor(lhs, rhs)
    return lax.select(zero, lax.bitwise_not(lax.full_like(lhs, 0)), lax.div(lhs, divisor))


def _rem(lhs: Any, rhs: Any) -> Any:
    """Integer x % 0 is x, INT_MIN % -1 is 0 (as XLA's compiled code gives). Sub-byte integers are computed in 8
    bits: XLA on CPU miscompiles the guarded s2 remainder (rem(x, select(x == -2 & y == -1 | y == 0, 1, y)) gives
    -1 % 1 = -1; found by the fuzzer, docs/fuzz_findings.md)."""
    if not _is_int(lhs):
        return lax.rem(lhs, rhs)
    if jnp.iinfo(lhs.dtype).bits < 8:
        wide = jnp.int8 if jnp.issubdtype(lhs.dtype, jnp.signedinteger) else jnp.uint8
        return _rem(lhs.astype(wide), rhs.astype(wide)).astype(lhs.dtype)
    divisor, zero = _safe_divisor(lhs, rhs)
    return lax.select(zero, lhs, lax.rem(lhs, divisor))


def _pow(lhs: Any, rhs: Any) -> Any:
    if not _is_int(lhs):
        return lax.pow(lhs, rhs)
    if not jnp.issubdtype(rhs.dtype, jnp.signedinteger):
        return _XLA_POWER.bind(lhs, rhs)
    # A negative exponent is 1 / lhs**-rhs in integers, as XLA's compiled code gives: 1 for base 1, +-1 for
    # base -1 by the exponent's parity, else 0. Written out, so XLA's constant folder (which gave 0 for
    # base -1) computes the same.
    zero, one = lax.full_like(lhs, 0), lax.full_like(lhs, 1)
    negative = lax.lt(rhs, lax.full_like(rhs, 0))
    odd = lax.ne(lax.bitwise_and(rhs, lax.full_like(rhs, 1)), lax.full_like(rhs, 0))
    minus_one = lax.eq(lhs, lax.full_like(lhs, -1))
    inverse = lax.select(lax.eq(lhs, one), one, lax.select(minus_one, lax.select(odd, lhs, one), zero))
    power = _XLA_POWER.bind(lhs, lax.select(negative, lax.full_like(rhs, 0), rhs))
    return lax.select(negative, inverse, power)


_LAX: dict[str, Callable[[Any, Any], Any]] = {
    "Add": _add,
    "Sub": lax.sub,
    "Mul": lax.mul,
    "Div": divide,
    "Rem": _rem,
    "Max": lax.max,
    "Min": lax.min,
    "Pow": _pow,
    "Atan2": lax.atan2,
    "Complex": lax.complex,
    "And": lax.bitwise_and,
    "Or": lax.bitwise_or,
    "Xor": lax.bitwise_xor,
    "ShiftLeft": lax.shift_left,
    "ShiftRightArithmetic": lax.shift_right_arithmetic,
    "ShiftRightLogical": lax.shift_right_logical,
}


def _lowering_for(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def lower(ctx: LoweringContext, lhs: Any, rhs: Any) -> Any:
        return fn(lhs, rhs)
    lower.__name__ = getattr(fn, "__name__", "lower")
    return lower


for _op, _fn in _LAX.items():
    lowering(_op)(_lowering_for(_fn))
