"""jax lowerings of the one-operand element-wise ops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.hlo import etypes
from backend.hlo.attribute_types import ResultAccuracy, ResultAccuracyMode
from backend.jax_backend import LoweringContext, limitation, lowering


def _accuracy(ctx: LoweringContext) -> Any:
    """The op's ``result_accuracy`` as lax takes it (None, an AccuracyMode or a Tolerance)."""
    accuracy: ResultAccuracy | None = ctx.attrs.get("result_accuracy")
    if accuracy is None:
        return None
    if accuracy.mode == ResultAccuracyMode.TOLERANCE:
        return lax.Tolerance(atol=accuracy.atol, rtol=accuracy.rtol, ulps=accuracy.ulps)
    return lax.AccuracyMode[accuracy.mode.name]


def _with_accuracy(fn: Callable[..., Any]) -> Callable[[Any, Any], Any]:
    def lower(ctx: LoweringContext, operand: Any) -> Any:
        return fn(operand, accuracy=_accuracy(ctx))
    return lower


def _plain(fn: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def lower(ctx: LoweringContext, operand: Any) -> Any:
        return fn(operand)
    return lower


def _rounding(method: lax.RoundingMethod) -> Callable[[Any], Any]:
    def fn(operand: Any) -> Any:
        if jnp.finfo(operand.dtype).bits <= 8:  # in f32, as compiled code does (the constant folder gave NaN)
            return lax.convert_element_type(lax.round(lax.convert_element_type(operand, jnp.float32), method),
                                            operand.dtype)
        return lax.round(operand, method)
    return fn


def _abs(operand: Any) -> Any:
    """lax.abs; signed types narrower than a byte (which lax.abs refuses) through s8, wrapping back
    (|-8| of an s4 is -8, as in every two's complement width)."""
    if jnp.issubdtype(operand.dtype, jnp.signedinteger) and jnp.iinfo(operand.dtype).bits < 8:
        return lax.convert_element_type(lax.abs(lax.convert_element_type(operand, jnp.int8)), operand.dtype)
    return lax.abs(operand)


def _clz(operand: Any) -> Any:
    """lax.clz, with 0 for negative values (their sign bit is set) spelled out.

    XLA's compiled code gives 0 there, but its constant folder counts a negative constant's leading
    zeros wrongly (clz(s32 -1) = -32), so the same program gave different results with constants.
    """
    if not jnp.issubdtype(operand.dtype, jnp.signedinteger):
        return lax.clz(operand)
    zero = jnp.zeros((), operand.dtype)
    return lax.select(lax.lt(operand, zero), lax.full_like(operand, 0), lax.clz(operand))


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
_PLAIN = {"Abs": _abs, "Ceil": lax.ceil, "Clz": _clz, "Cosh": lax.cosh, "Erf": lax.erf, "Floor": lax.floor,
          "IsFinite": lax.is_finite, "Neg": lax.neg, "Not": lax.bitwise_not, "PopulationCount": _population_count,
          "Round": _rounding(lax.RoundingMethod.AWAY_FROM_ZERO),
          "RoundNearestAfz": _rounding(lax.RoundingMethod.AWAY_FROM_ZERO),
          "RoundNearestEven": _rounding(lax.RoundingMethod.TO_NEAREST_EVEN), "Sign": lax.sign}

for _name, _fn in _ACCURATE.items():
    lowering(_name)(_with_accuracy(_fn))
for _name, _fn in _PLAIN.items():
    lowering(_name)(_plain(_fn))


@lowering("Real")
def real(ctx: LoweringContext, operand: Any) -> Any:
    return lax.real(operand) if jnp.iscomplexobj(operand) else operand


@lowering("Imag")
def imag(ctx: LoweringContext, operand: Any) -> Any:
    return lax.imag(operand) if jnp.iscomplexobj(operand) else lax.full_like(operand, 0)


@limitation(*(name for name in _ACCURATE if name != "Cbrt"))
def _accuracy_limit(inst: Any, operand_shapes: list[Any]) -> str | None:
    # XLA accepts a tolerance of all zeros (atol = rtol = 0, ulps = 0: the exact result); jax.lax.Tolerance
    # refuses it ("At least one of atol, rtol, or ulps must be set").
    accuracy = inst.attrs.get("result_accuracy")
    if accuracy is not None and accuracy.mode == ResultAccuracyMode.TOLERANCE \
            and accuracy.atol == 0 and accuracy.rtol == 0 and accuracy.ulps == 0:
        return ("result_accuracy is a tolerance of atol = rtol = 0 and ulps = 0, which jax.lax.Tolerance refuses "
                "(it needs one of them non-zero)")
    return None


@limitation("Cbrt")
def _cbrt_limit(inst: Any, operand_shapes: list[Any]) -> str | None:
    # StableHLO's cbrt takes complex operands too; jax.lax.cbrt does not.
    if etypes.is_complex(inst.shape.element_type()):
        return "jax.lax.cbrt has no complex kernel (it accepts real floating-point operands only)"
    return _accuracy_limit(inst, operand_shapes)


