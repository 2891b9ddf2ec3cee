"""jax lowerings of XLA's math-library functions (Acos ... Atanh, Sinh, Erfc, Square, Reciprocal,
Conj, NextAfter): each is its ``jax.lax`` function.

Reciprocal is lowered as XLA builds it, 1 / x (``lax.reciprocal`` refuses integers, which XLA's
Reciprocal takes and divides like Div).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
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


@lowering("NextAfter")
def next_after(ctx: LoweringContext, from_: Any, to: Any) -> Any:
    return lax.nextafter(from_, to)
