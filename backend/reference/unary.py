"""Reference evaluators of the one-operand element-wise ops.

Floating-point and complex functions are evaluated in float64 / complex128 and rounded once
to the result type (``in_wide_precision``); integer ops work on the two's-complement bit
pattern of each element, so that every integer width (s1 to s64, u1 to u64) wraps alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import etypes
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import (
    Allowed,
    nan_of,
    no_nan_encoding,
    non_finite_parts,
    subnormal_outcomes,
)
from backend.reference.elementwise import by_kind, complex_of, in_wide_precision

Array = np.ndarray


# -- helpers -----------------------------------------------------------------------------------
def _kind(x: Array) -> etypes.PrimitiveType:
    return etypes.dtype_to_etype(x.dtype)


def _is_complex(x: Array) -> bool:
    return etypes.is_complex(_kind(x))


def _bits(x: Array) -> tuple[Array, int]:
    """The two's-complement bit pattern of each integer element (as uint64) and the bit width."""
    width = etypes.bit_width(_kind(x))
    mask = np.uint64((1 << width) - 1)
    return x.astype(np.int64).astype(np.uint64) & mask, width


def _from_bits(bits: Array, ctx: EvaluatorContext) -> Array:
    """Integer bit patterns back to the result type (the cast keeps the low bits: it wraps)."""
    return np.asarray(bits, dtype=np.uint64).astype(ctx.shape.numpy_dtype())


def _negated_bits(x: Array) -> Array:
    bits, width = _bits(x)
    with np.errstate(over="ignore"):  # two's complement negation wraps modulo 2**64 by design
        return (~bits + np.uint64(1)) & np.uint64((1 << width) - 1)


def _highest_set_bit(bits: Array, width: int) -> Array:
    """1 + the index of the highest set bit (0 where no bit is set)."""
    out = np.zeros(bits.shape, np.uint64)
    for k in range(width):
        out = np.where((bits >> np.uint64(k)) & np.uint64(1), np.uint64(k + 1), out)
    return out


def _wide_evaluator(fn: Callable[[Array], Array]) -> Callable[[Any, Array], Array]:
    """An evaluator applying ``fn`` in wide precision (f64 / c128), rounded once."""
    def ev(ctx: EvaluatorContext, operand: Array) -> Array:
        return in_wide_precision(fn, ctx, operand)
    return ev


def _real_or_complex(real: Callable[[Array], Array],
                     complex_: Callable[[Array], Array]) -> Callable[[Array], Array]:
    """A wide-precision function that uses ``complex_`` for complex arrays."""
    def fn(x: Array) -> Array:
        return complex_(x) if np.iscomplexobj(x) else real(x)
    return fn


# -- transcendental functions in f64 / c128 ------------------------------------------------------
def _cbrt_complex(z: Array) -> Array:
    """The principal cube root exp(log(z) / 3), 0 at 0."""
    return np.where(z == 0, z, np.exp(np.log(np.where(z == 0, 1, z)) / 3))


def _expm1_complex(z: Array) -> Array:
    """e^z - 1 without cancellation near 0: expm1(x)cos(y) - 2 sin^2(y/2) + i e^x sin(y)."""
    x, y = z.real, z.imag
    re = np.expm1(x) * np.cos(y) - 2 * np.sin(y / 2) ** 2
    im = np.where(y == 0, y, np.exp(x) * np.sin(y))
    return complex_of(re, im)  # e^6098 overflows: (-inf, -inf) for y = 13789.8, not NaN in the real part


def _log1p_complex(z: Array) -> Array:
    """ln(1 + z) without cancellation near 0: 0.5 log1p(2x + x^2 + y^2) + i atan2(y, 1 + x)."""
    x, y = z.real, z.imag
    big = np.maximum(np.abs(x), np.abs(y)) > 1e150
    re = np.where(big, np.log(np.abs(z + 1)), 0.5 * np.log1p(x * (2 + x) + y * y))
    return re + 1j * np.arctan2(y, 1 + x)


def _erf(x: Array) -> Array:
    return np.asarray(np.frompyfunc(math.erf, 1, 1)(x)).astype(np.float64)  # a scalar for rank 0


def _logistic(x: Array) -> Array:
    """1 / (1 + e^-x); for a complex x with a negative real part as e^x / (1 + e^x), which does not
    overflow to inf/inf = NaN where e^-x is infinite and the result is about 0 (found by the fuzzer)."""
    if not np.iscomplexobj(x):
        return 1 / (1 + np.exp(-x))
    return np.where(x.real < 0, np.exp(x) / (1 + np.exp(x)), 1 / (1 + np.exp(-x)))


def _rsqrt(x: Array) -> Array:
    return 1 / np.sqrt(x)


def _sqrt_complex(z: Array) -> Array:
    """The principal square root; a zero imaginary part counts as +0 (XLA's branch cut)."""
    return np.sqrt(z.real + 1j * (z.imag + 0.0))


_TRANSCENDENTAL: dict[str, Callable[[Array], Array]] = {
    "Cbrt": _real_or_complex(np.cbrt, _cbrt_complex),
    "Cos": np.cos,
    "Cosh": np.cosh,
    "Erf": _erf,
    "Exp": np.exp,
    "Expm1": _real_or_complex(np.expm1, _expm1_complex),
    "Log": np.log,
    "Log1p": _real_or_complex(np.log1p, _log1p_complex),
    "Logistic": _logistic,
    "Rsqrt": _rsqrt,
    "Sin": np.sin,
    "Sqrt": _real_or_complex(np.sqrt, _sqrt_complex),
    "Tan": np.tan,
    "Tanh": np.tanh,
}


# -- rounding ----------------------------------------------------------------------------------
def _round_half_away(x: Array) -> Array:
    """Nearest integer, ties away from zero; the sign of zero is kept."""
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


_FLOAT_ONLY: dict[str, Callable[[Array], Array]] = {
    "Ceil": np.ceil,
    "Floor": np.floor,
    "Round": _round_half_away,
    "RoundNearestAfz": _round_half_away,
    "RoundNearestEven": np.rint,
}

for _name, _fn in {**_TRANSCENDENTAL, **_FLOAT_ONLY}.items():
    evaluator(_name)(_wide_evaluator(_fn))


# -- implementation-defined behaviour of the float ops ---------------------------------------------


def _no_infinity_overflow(ctx: EvaluatorContext, x: Array) -> Allowed:
    """Where e^-x overflows an element type that has no infinity: 0 (the limit) or NaN (XLA)."""
    if np.iscomplexobj(x) or np.isinf(np.array(np.inf).astype(x.dtype).astype(np.float64)):
        mask = np.zeros(x.shape, bool)
    else:
        mask = -x.astype(np.float64) > np.log(float(ml_dtypes.finfo(x.dtype).max))
    return Allowed(mask, {"nan": nan_of(x.shape, ctx.shape.numpy_dtype())})


def _negative_real_axis(ctx: EvaluatorContext, z: Array) -> Allowed:
    """On the negative real axis: the upper branch (XLA), or C99's branch chosen by the zero's sign."""
    mask = (z.real < 0) & (z.imag == 0) if np.iscomplexobj(z) else np.zeros(z.shape, bool)
    with np.errstate(all="ignore"):
        c99 = np.sqrt(z.astype(np.complex128)).astype(ctx.shape.numpy_dtype()) if np.iscomplexobj(z) else z
    return Allowed(mask, {"c99_lower": c99})


def _below_cbrt_of_tiny(x: Array) -> Callable[[Array, Array], Array]:
    """Any finite value smaller in magnitude than the cube root of the smallest normal value."""
    bound = float(np.cbrt(float(ml_dtypes.finfo(x.real.dtype).tiny)))

    def accepts(actual: Array, expected: Array) -> Array:
        with np.errstate(invalid="ignore"):
            a = np.asarray(actual).astype(np.complex128)
        return np.isfinite(a) & (np.abs(a.real) < bound) & (np.abs(a.imag) < bound)
    return accepts


def _no_nan_encoding(fn: Callable[[Array], Array]) -> Callable[[Any, Array], Allowed]:
    """f4e2m1fn operands where the function is undefined (a NaN, which the type cannot hold): a zero of either sign."""
    return lambda ctx, operand: no_nan_encoding(fn, operand)


_EXTRA_OUTCOMES: dict[str, dict[str, Callable[[Any, Array], Allowed]]] = {
    "Log": {"no_nan_encoding": _no_nan_encoding(np.log)},
    "Log1p": {"no_nan_encoding": _no_nan_encoding(np.log1p)},
    "Logistic": {"no_infinity_overflow": _no_infinity_overflow},
    "Sqrt": {"branch_cut_sign": _negative_real_axis, "no_nan_encoding": _no_nan_encoding(np.sqrt)},
    "Rsqrt": {"no_nan_encoding": _no_nan_encoding(lambda x: 1 / np.sqrt(x))},
}


def float_outcomes(name: str, fn: Callable[[Array], Array]) -> Callable[[Any, Array], dict[str, Allowed]]:
    """Subnormals (IEEE or flushed), non-finite complex operands (C99 or the plain formulas), the op's own ids."""
    def ev(ctx: EvaluatorContext, operand: Array) -> Array:
        return in_wide_precision(fn, ctx, operand)

    def outcomes(ctx: EvaluatorContext, operand: Array) -> dict[str, Allowed]:
        out = {"subnormal_flush": subnormal_outcomes(ev, ctx, operand)}
        if name == "Cbrt":
            out["subnormal_flush"].outcomes["misread"] = _below_cbrt_of_tiny(operand)
        if _is_complex(operand):
            out["complex_non_finite"] = Allowed(~np.isfinite(operand), {"plain_formula": non_finite_parts})
        out.update({key: extra(ctx, operand) for key, extra in _EXTRA_OUTCOMES.get(name, {}).items()})
        return out
    return outcomes


for _name, _fn in {**_TRANSCENDENTAL, **_FLOAT_ONLY}.items():
    implementation_defined(_name)(float_outcomes(_name, _fn))


# -- sign, negation, absolute value --------------------------------------------------------------
def _float_sign(x: Array) -> Array:
    """-1, +1, NaN for NaN, and the zero itself (its sign kept) for +-0."""
    if np.iscomplexobj(x):
        mod = np.abs(x)
        safe = np.where(mod == 0, 1, mod)
        return np.where(mod == 0, x, x.real / safe + 1j * (x.imag / safe))
    return np.where(x == 0, x, np.sign(x))


@evaluator("Sign")
def sign(ctx: EvaluatorContext, operand: Array) -> Array:
    if etypes.is_int(_kind(operand)):
        return np.sign(operand.astype(np.int64)).astype(ctx.shape.numpy_dtype())
    return in_wide_precision(_float_sign, ctx, operand)


implementation_defined("Sign")(float_outcomes("Sign", _float_sign))


@evaluator("Neg")
def neg(ctx: EvaluatorContext, operand: Array) -> Array:
    if etypes.is_int(_kind(operand)):
        return _from_bits(_negated_bits(operand), ctx)
    return in_wide_precision(np.negative, ctx, operand)


@evaluator("Abs")
def abs_(ctx: EvaluatorContext, operand: Array) -> Array:
    if etypes.is_int(_kind(operand)):
        bits, _ = _bits(operand)
        return _from_bits(np.where(operand.astype(np.int64) < 0, _negated_bits(operand), bits), ctx)
    return by_kind(ctx, operand, np.abs)


@implementation_defined("Abs")
def abs_outcomes(ctx: EvaluatorContext, operand: Array) -> dict[str, Allowed]:
    """A complex value with an infinite part and a NaN part: inf (C99) or NaN (XLA); a finite one whose squared
    parts overflow or underflow the part type: the modulus (XLA) or sqrt(re^2 + im^2) evaluated in the part type."""
    if not _is_complex(operand):
        return {}
    both = (np.isinf(operand.real) | np.isinf(operand.imag)) & (np.isnan(operand.real) | np.isnan(operand.imag))
    part = operand.real.dtype
    with np.errstate(all="ignore"):
        naive = np.sqrt(operand.real * operand.real + operand.imag * operand.imag).astype(part)
        modulus = np.abs(operand.astype(np.complex128))
    finite = np.isfinite(operand.real) & np.isfinite(operand.imag)
    tiny, huge = math.sqrt(float(np.finfo(part).tiny)), math.sqrt(float(np.finfo(part).max))
    outside = finite & (modulus > 0) & ((modulus > huge) | (modulus < tiny))  # re^2 + im^2 out of the range
    return {"complex_non_finite": Allowed(both, {"nan": nan_of(operand.shape, ctx.shape.numpy_dtype())}),
            "complex_overflow": Allowed(outside, {"naive_formula": naive})}


# -- bit operations ------------------------------------------------------------------------------
@evaluator("Not")
def not_(ctx: EvaluatorContext, operand: Array) -> Array:
    if operand.dtype == np.bool_:
        return np.logical_not(operand)
    bits, width = _bits(operand)
    return _from_bits(~bits & np.uint64((1 << width) - 1), ctx)


@evaluator("PopulationCount")
def population_count(ctx: EvaluatorContext, operand: Array) -> Array:
    bits, width = _bits(operand)
    count = sum(((bits >> np.uint64(k)) & np.uint64(1) for k in range(width)), np.zeros(bits.shape, np.uint64))
    return _from_bits(count, ctx)


@evaluator("Clz")
def clz(ctx: EvaluatorContext, operand: Array) -> Array:
    bits, width = _bits(operand)
    return _from_bits(np.uint64(width) - _highest_set_bit(bits, width), ctx)


# -- classification and complex parts -------------------------------------------------------------
@evaluator("IsFinite")
def is_finite(ctx: EvaluatorContext, operand: Array) -> Array:
    return np.isfinite(operand.astype(np.float64))


@evaluator("Real")
def real(ctx: EvaluatorContext, operand: Array) -> Array:
    return in_wide_precision(np.real, ctx, operand)


@evaluator("Imag")
def imag(ctx: EvaluatorContext, operand: Array) -> Array:
    if _is_complex(operand):
        return in_wide_precision(np.imag, ctx, operand)
    return np.zeros(operand.shape, ctx.shape.numpy_dtype())
