"""jax lowerings of the one-operand element-wise ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax

from backend import etypes
from backend.api_types import ResultAccuracy, ResultAccuracyMode
from backend.jax_backend import limitation, lowering


def _accuracy(ctx: Any) -> Any:
    """The op's ``result_accuracy`` as lax takes it (None, an AccuracyMode or a Tolerance)."""
    accuracy: ResultAccuracy | None = ctx.attrs.get("result_accuracy")
    if accuracy is None:
        return None
    if accuracy.mode == ResultAccuracyMode.TOLERANCE:
        return lax.Tolerance(atol=accuracy.atol, rtol=accuracy.rtol, ulps=accuracy.ulps)
    return lax.AccuracyMode[accuracy.mode.name]


def _with_accuracy(fn: Callable[..., Any]) -> Callable[[Any, Any], Any]:
    def lower(ctx: Any, operand: Any) -> Any:
        return fn(operand, accuracy=_accuracy(ctx))
    return lower


def _plain(fn: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def lower(ctx: Any, operand: Any) -> Any:
        return fn(operand)
    return lower


def _rounding(method: lax.RoundingMethod) -> Callable[[Any], Any]:
    def fn(operand: Any) -> Any:
        return lax.round(operand, method)
    return fn


def _population_count(operand: Any) -> Any:
    """lax.population_count; signed types narrower than a byte are counted over their own bits.

    (XLA on CPU counts the bits of the sign-extended storage byte of s2/s4: popcount(-1) = 8.)
    """
    width = jnp.iinfo(operand.dtype).bits
    if width >= 8 or not jnp.issubdtype(operand.dtype, jnp.signedinteger):
        return lax.population_count(operand)
    byte = lax.bitwise_and(lax.convert_element_type(operand, jnp.int8), jnp.int8((1 << width) - 1))
    return lax.convert_element_type(lax.population_count(byte), operand.dtype)


# lax has no ``accuracy`` parameter for cosh and erf: their result_accuracy is not passed on.
_ACCURATE = {"Cbrt": lax.cbrt, "Cos": lax.cos, "Exp": lax.exp, "Expm1": lax.expm1, "Log": lax.log,
             "Log1p": lax.log1p, "Logistic": lax.logistic, "Rsqrt": lax.rsqrt, "Sin": lax.sin, "Sqrt": lax.sqrt,
             "Tan": lax.tan, "Tanh": lax.tanh}
_PLAIN = {"Abs": lax.abs, "Ceil": lax.ceil, "Clz": lax.clz, "Cosh": lax.cosh, "Erf": lax.erf, "Floor": lax.floor,
          "IsFinite": lax.is_finite, "Neg": lax.neg, "Not": lax.bitwise_not, "PopulationCount": _population_count,
          "Round": _rounding(lax.RoundingMethod.AWAY_FROM_ZERO),
          "RoundNearestAfz": _rounding(lax.RoundingMethod.AWAY_FROM_ZERO),
          "RoundNearestEven": _rounding(lax.RoundingMethod.TO_NEAREST_EVEN), "Sign": lax.sign}

for _name, _fn in _ACCURATE.items():
    lowering(_name)(_with_accuracy(_fn))
for _name, _fn in _PLAIN.items():
    lowering(_name)(_plain(_fn))


@lowering("Real")
def real(ctx: Any, operand: Any) -> Any:
    return lax.real(operand) if jnp.iscomplexobj(operand) else operand


@lowering("Imag")
def imag(ctx: Any, operand: Any) -> Any:
    return lax.imag(operand) if jnp.iscomplexobj(operand) else lax.full_like(operand, 0)


@limitation("Cbrt")
def _cbrt_limit(inst: Any, operand_shapes: list[Any]) -> str | None:
    # StableHLO's cbrt takes complex operands too; jax.lax.cbrt does not.
    if etypes.is_complex(inst.shape.element_type()):
        return "jax.lax.cbrt has no complex kernel (it accepts real floating-point operands only)"
    return None


@limitation("Abs")
def _abs_limit(inst: Any, operand_shapes: list[Any]) -> str | None:
    et = inst.shape.element_type()
    if etypes.is_signed_int(et) and etypes.bit_width(et) < 8:
        return f"jax.lax.abs does not accept {etypes.short_name(et)} (narrow integers are platform-dependent in jax)"
    return None
