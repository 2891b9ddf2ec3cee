"""Reference evaluators of the element-wise binary ops.

Add, Sub, Mul, Div, Rem, Max, Min, Pow, Atan2, Complex, And, Or, Xor, ShiftLeft,
ShiftRightArithmetic and ShiftRightLogical. The operands arrive already broadcast to the
result shape (the builder inserts the broadcast).

Floating-point results are computed in float64 / complex128 and rounded once to the result
type. Integer arithmetic works on two's-complement bit patterns held in uint64 (so every width,
s4 and u64 included, wraps the same way); the points the documents leave open follow XLA's
observed behaviour and have masks registered with ``@implementation_defined``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import etypes
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import (
    Allowed,
    any_zero,
    no_nan_encoding,
    non_finite_parts,
    subnormal_outcomes,
)
from backend.reference.elementwise import complex_of, in_wide_precision, lexicographic_extremum

Masks = dict[str, np.ndarray]
Outcomes = dict[str, Allowed]

#: XLA's integer Pow looks at the low 6 bits of a non-negative exponent only.
POW_EXPONENT_BITS = 6


# -- element-type helpers ---------------------------------------------------------------------
def _etype(x: np.ndarray) -> etypes.PrimitiveType:
    return etypes.dtype_to_etype(x.dtype)


def _is_int(x: np.ndarray) -> bool:
    return etypes.is_int(_etype(x))


def _is_signed(x: np.ndarray) -> bool:
    return etypes.is_signed_int(_etype(x))


def _is_inexact(x: np.ndarray) -> bool:
    et = _etype(x)
    return etypes.is_float(et) or etypes.is_complex(et)


def _bits(x: np.ndarray) -> int:
    return etypes.bit_width(_etype(x))


# -- two's-complement bit patterns --------------------------------------------------------------
def _mask(bits: int) -> np.uint64:
    return np.uint64((1 << bits) - 1)


def _to_bits(x: np.ndarray) -> np.ndarray:
    """The element bit patterns, zero-extended into uint64."""
    wide = x.astype(np.uint64) if x.dtype == np.uint64 else x.astype(np.int64).astype(np.uint64)
    return wide & _mask(_bits(x))


def _signed_value(pattern: np.ndarray, bits: int) -> np.ndarray:
    """Read ``bits``-wide patterns as two's-complement signed values (int64)."""
    value = pattern.astype(np.int64)
    if bits < 64:
        value = np.where(pattern >= np.uint64(1 << (bits - 1)), value - np.int64(1 << bits), value)
    return value


def _from_bits(pattern: np.ndarray, ctx: EvaluatorContext) -> np.ndarray:
    """uint64 patterns (any high bits ignored) as the result type."""
    dtype = ctx.shape.numpy_dtype()
    bits = etypes.bit_width(ctx.shape.element_type())
    pattern = pattern & _mask(bits)
    if etypes.is_signed_int(ctx.shape.element_type()):
        return _signed_value(pattern, bits).astype(dtype)
    return pattern.astype(dtype)


def _wrapping(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], ctx: EvaluatorContext, lhs: np.ndarray,
              rhs: np.ndarray) -> np.ndarray:
    """An integer ring operation (+, -, *, &, |, ^) modulo 2**bits."""
    with np.errstate(all="ignore"):
        return _from_bits(fn(_to_bits(lhs), _to_bits(rhs)), ctx)


def _wide_ints(x: np.ndarray) -> np.ndarray:
    """Integer values in int64 (uint64 for u64)."""
    return x.astype(np.uint64 if x.dtype == np.uint64 else np.int64)


def _with_subnormals(ctx: EvaluatorContext, ev: Callable[..., np.ndarray], lhs: np.ndarray, rhs: np.ndarray,
                     outcomes: Outcomes | None = None) -> Outcomes:
    """``outcomes`` plus, for floating-point operands, ``subnormals``: IEEE or flushed (DAZ + FTZ)."""
    outcomes = dict(outcomes or {})
    if _is_inexact(lhs):
        outcomes["subnormals"] = subnormal_outcomes(ev, ctx, lhs, rhs)
    return outcomes


def _complex_specials(ctx: EvaluatorContext, ev: Callable[..., np.ndarray], lhs: np.ndarray, rhs: np.ndarray,
                      zero: np.ndarray) -> Outcomes:
    """For complex operands: where an operand or the result has an infinite or NaN part, or ``zero`` is 0;
    there the plain formulas may give other non-finite parts."""
    if not etypes.is_complex(_etype(lhs)):
        return {}
    with np.errstate(all="ignore"):
        mask = ~np.isfinite(lhs) | ~np.isfinite(rhs) | ~np.isfinite(ev(ctx, lhs, rhs)) | (zero == 0)
    return {"complex_special_values": Allowed(mask, {"plain_formula": non_finite_parts})}


def _no_nan_encoding(fn: Callable[..., Any], lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    """f4e2m1fn operands whose result is NaN, which the type cannot hold (Div 0 / 0, Rem x % 0, Pow of a
    negative base to a non-integer power): a zero of either sign. Other types have no such entry."""
    return {"no_nan_encoding": no_nan_encoding(fn, lhs, rhs)} if lhs.dtype == ml_dtypes.float4_e2m1fn else {}


def _arithmetic(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray, fn: Callable[..., Any]) -> np.ndarray:
    """Floats/complex widened and rounded once; integers wrap."""
    if _is_inexact(lhs):
        return in_wide_precision(fn, ctx, lhs, rhs)
    return _wrapping(fn, ctx, lhs, rhs)


# -- Add, Sub, Mul ------------------------------------------------------------------------------
@evaluator("Add")
def add(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if lhs.dtype == np.bool_:
        return np.logical_or(lhs, rhs)
    return _arithmetic(ctx, lhs, rhs, np.add)


@evaluator("Sub")
def sub(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return _arithmetic(ctx, lhs, rhs, np.subtract)


@evaluator("Mul")
def mul(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return _arithmetic(ctx, lhs, rhs, np.multiply)


@implementation_defined("Add")
def add_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _with_subnormals(ctx, add, lhs, rhs)


@implementation_defined("Sub")
def sub_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _with_subnormals(ctx, sub, lhs, rhs)


@implementation_defined("Mul")
def mul_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _with_subnormals(ctx, mul, lhs, rhs, _complex_specials(ctx, mul, lhs, rhs, np.ones(1)))


# -- Div, Rem -----------------------------------------------------------------------------------
def _division_cases(lhs: np.ndarray, rhs: np.ndarray) -> Masks:
    """Where an integer divisor is zero, and where a signed INT_MIN is divided by -1."""
    if not _is_int(lhs):
        return {}
    bits = _bits(lhs)
    overflow = (_to_bits(lhs) == np.uint64(1 << (bits - 1))) & (_to_bits(rhs) == _mask(bits)) & _is_signed(lhs)
    return {"division_by_zero": _to_bits(rhs) == 0, "int_min_over_minus_one": overflow}


def _safe_int_operands(lhs: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dividend, divisor, zero mask) in a 64-bit type; zero and INT_MIN/-1 divisors replaced by 1."""
    cases = _division_cases(lhs, rhs)
    a, b = _wide_ints(lhs), _wide_ints(rhs)
    divisor = np.where(cases["division_by_zero"] | cases["int_min_over_minus_one"], b.dtype.type(1), b)
    return a, divisor, cases["division_by_zero"]


def _int_divide(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Quotient rounded toward zero; x / 0 has every bit set; INT_MIN / -1 = INT_MIN."""
    a, d, zero = _safe_int_operands(lhs, rhs)
    quotient = (a - np.fmod(a, d)) // d  # a - fmod(a, d) is an exact multiple of d: no floor rounding
    all_ones = _from_bits(np.full(a.shape, _mask(64)), ctx)
    return np.where(zero, all_ones, quotient.astype(ctx.shape.numpy_dtype()))


def _int_remainder(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Remainder with the dividend's sign (C %); x % 0 = x; INT_MIN % -1 = 0."""
    a, d, zero = _safe_int_operands(lhs, rhs)
    return np.where(zero, a, np.fmod(a, d)).astype(ctx.shape.numpy_dtype())


@evaluator("Div")
def div(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if _is_int(lhs):
        return _int_divide(ctx, lhs, rhs)
    return in_wide_precision(np.divide, ctx, lhs, rhs)


@evaluator("Rem")
def rem(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if _is_int(lhs):
        return _int_remainder(ctx, lhs, rhs)
    return in_wide_precision(np.fmod, ctx, lhs, rhs)


def _broadcast_divisor_reciprocal(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    """Real floats where the divisor is broadcast (constant along a dimension of size > 1) and
    x * (1 / y), as XLA's simplifier rewrites x / broadcast(y), rounds differently from x / y;
    the other outcome there: x * (1 / y), each product and reciprocal rounded to the type."""
    if not _is_inexact(lhs) or etypes.is_complex(_etype(lhs)):
        return {}
    with np.errstate(all="ignore"):
        same = [(rhs == np.take(rhs, [0], axis=d)) | (np.isnan(rhs) & np.isnan(np.take(rhs, [0], axis=d)))
                for d in range(rhs.ndim) if rhs.shape[d] > 1]
        if not any(m.all() for m in same):
            return {}
        out = ctx.shape.numpy_dtype()
        compute = np.float64 if out == np.float64 else np.float32
        reciprocal = (compute(1) / rhs.astype(compute)).astype(out)
        rewritten = (lhs.astype(compute) * reciprocal.astype(compute)).astype(out)
        exact = div(ctx, lhs, rhs)
    differs = ~((rewritten == exact) & (np.signbit(rewritten) == np.signbit(exact)) | (np.isnan(rewritten) & np.isnan(exact)))
    return {"broadcast_divisor_reciprocal": Allowed(differs, {"reciprocal": rewritten})}


@implementation_defined("Div")
def div_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    """An integer divided by zero: all ones (XLA) or 0 (ARM); INT_MIN / -1 has the one outcome INT_MIN;
    real floats over a broadcast divisor: x / y or x * (1 / y)."""
    if _is_int(lhs):
        zero = _division_cases(lhs, rhs)["division_by_zero"]
        return {"division_by_zero": Allowed(zero, {"zero": np.zeros(zero.shape, ctx.shape.numpy_dtype())})}
    return _with_subnormals(ctx, div, lhs, rhs, {**_complex_specials(ctx, div, lhs, rhs, rhs),
                                                 **_broadcast_divisor_reciprocal(ctx, lhs, rhs),
                                                 **_no_nan_encoding(np.divide, lhs, rhs)})


@implementation_defined("Rem")
def rem_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _with_subnormals(ctx, rem, lhs, rhs, _no_nan_encoding(np.fmod, lhs, rhs))


# -- Max, Min -----------------------------------------------------------------------------------
def _float_extremum(a: np.ndarray, b: np.ndarray, take_a: np.ndarray, zero_negative: np.ndarray) -> np.ndarray:
    """``a`` where ``take_a`` else ``b``; NaN if either is NaN; a zero pair gives -0.0 where ``zero_negative``."""
    out = np.where(take_a, a, b)
    zeros = (a == 0) & (b == 0)
    out = np.where(zeros, np.where(zero_negative, -0.0, 0.0), out)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out)


def _max_f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _float_extremum(a, b, a > b, np.signbit(a) & np.signbit(b))


def _min_f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _float_extremum(a, b, a < b, np.signbit(a) | np.signbit(b))


def _extremum(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray, float_fn: Callable[..., np.ndarray],
              int_fn: Callable[..., np.ndarray]) -> np.ndarray:
    if np.iscomplexobj(lhs):
        with np.errstate(invalid="ignore"):
            return lexicographic_extremum(lhs, rhs, float_fn is _max_f).astype(ctx.shape.numpy_dtype())
    if _is_inexact(lhs):
        return in_wide_precision(float_fn, ctx, lhs, rhs)
    if _is_int(lhs):
        return int_fn(_wide_ints(lhs), _wide_ints(rhs)).astype(ctx.shape.numpy_dtype())
    return int_fn(lhs, rhs)  # pred: max is OR, min is AND


@evaluator("Max")
def max_(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return _extremum(ctx, lhs, rhs, _max_f, np.maximum)


@evaluator("Min")
def min_(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return _extremum(ctx, lhs, rhs, _min_f, np.minimum)


def _extremum_outcomes(ctx: EvaluatorContext, ev: Callable[..., np.ndarray], lhs: np.ndarray, rhs: np.ndarray,
                       number: Callable[..., np.ndarray]) -> Outcomes:
    """NaN: propagated (XLA) or ignored (IEEE maxNum/minNum, ``number``); a -0/+0 pair: ordered or either zero."""
    if not etypes.is_float(_etype(lhs)):
        return {}
    a, b = lhs.astype(np.float64), rhs.astype(np.float64)
    return _with_subnormals(ctx, ev, lhs, rhs, {
        "nan": Allowed(np.isnan(a) | np.isnan(b), {"number": in_wide_precision(number, ctx, lhs, rhs)}),
        "signed_zero": Allowed((a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b)), {"either_zero": any_zero})})


@implementation_defined("Max")
def max_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _extremum_outcomes(ctx, max_, lhs, rhs, np.fmax)


@implementation_defined("Min")
def min_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _extremum_outcomes(ctx, min_, lhs, rhs, np.fmin)


# -- Pow ----------------------------------------------------------------------------------------
def _exponent(rhs: np.ndarray) -> np.ndarray:
    """The exponent as XLA reads it: its bit pattern as a signed value (unsigned types of 8 bits or more too).
    The sub-byte unsigned types (u1, u2, u4) are widened to u8 first, so their exponent is the plain value:
    u4 11 ** 9 is 11 ** 9 modulo 16 = 11, not 11 ** -7 = 0."""
    if etypes.is_unsigned_int(_etype(rhs)) and _bits(rhs) < 8:
        return _to_bits(rhs).astype(np.int64)
    return _signed_value(_to_bits(rhs), _bits(rhs))


def _int_pow(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray,
             exponent_bits: int = POW_EXPONENT_BITS) -> np.ndarray:
    """Square-and-multiply over the exponent's low ``exponent_bits`` bits; for a negative exponent
    1 / lhs**-rhs in integers: 1 for base 1, +-1 for base -1 (by the exponent's parity), else 0."""
    base, exponent = _to_bits(lhs), _exponent(rhs)
    acc = np.ones(base.shape, np.uint64)
    e = exponent.astype(np.uint64)
    with np.errstate(all="ignore"):
        for _ in range(exponent_bits):
            acc = np.where(e & np.uint64(1), acc * base, acc)
            base = base * base
            e = e >> np.uint64(1)
    minus_one = _to_bits(lhs) == _mask(_bits(lhs))
    one = np.ones(acc.shape, np.uint64)
    negative = np.where(_to_bits(lhs) == 1, one,
                        np.where(minus_one, np.where(exponent % 2 == 1, _mask(64), one), np.zeros_like(one)))
    return _from_bits(np.where(exponent >= 0, acc, negative), ctx)


@evaluator("Pow")
def pow_(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    if _is_int(lhs):
        return _int_pow(ctx, lhs, rhs)
    return in_wide_precision(np.power, ctx, lhs, rhs)


@implementation_defined("Pow")
def pow_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    """Integer exponents of 64 or more: modulo 64 (XLA) or the exact power modulo 2^n."""
    if not _is_int(lhs):
        return _with_subnormals(ctx, pow_, lhs, rhs, {**_complex_specials(ctx, pow_, lhs, rhs, lhs),
                                                      **_no_nan_encoding(np.power, lhs, rhs)})
    large = _exponent(rhs) >= (1 << POW_EXPONENT_BITS)
    return {"large_exponent": Allowed(large, {"exact_power": _int_pow(ctx, lhs, rhs, 64)})}


# -- Atan2, Complex -----------------------------------------------------------------------------
def _complex_atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """XLA's complex atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)): the real formula's angle, continued."""
    return -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))


@evaluator("Atan2")
def atan2(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return in_wide_precision(_complex_atan2 if np.iscomplexobj(lhs) else np.arctan2, ctx, lhs, rhs)


@implementation_defined("Atan2")
def atan2_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _with_subnormals(ctx, atan2, lhs, rhs)


@evaluator("Complex")
def complex_(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return complex_of(lhs, rhs, ctx.shape.numpy_dtype())


# -- And, Or, Xor -------------------------------------------------------------------------------
def _bitwise(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray, fn: Callable[..., np.ndarray]) -> np.ndarray:
    if lhs.dtype == np.bool_:
        return fn(lhs, rhs)
    return _wrapping(fn, ctx, lhs, rhs)


@evaluator("And")
def and_(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return _bitwise(ctx, lhs, rhs, np.bitwise_and)


@evaluator("Or")
def or_(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return _bitwise(ctx, lhs, rhs, np.bitwise_or)


@evaluator("Xor")
def xor(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return _bitwise(ctx, lhs, rhs, np.bitwise_xor)


# -- shifts -------------------------------------------------------------------------------------
def _shift_operands(lhs: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lhs bit pattern, shift amount made safe, out-of-range mask); the amount is read as unsigned."""
    amount = _to_bits(rhs)
    out_of_range = amount >= np.uint64(_bits(lhs))
    return _to_bits(lhs), np.where(out_of_range, np.uint64(0), amount), out_of_range


@evaluator("ShiftLeft")
def shift_left(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    x, amount, out_of_range = _shift_operands(lhs, rhs)
    return _from_bits(np.where(out_of_range, np.uint64(0), x << amount), ctx)


@evaluator("ShiftRightLogical")
def shift_right_logical(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    x, amount, out_of_range = _shift_operands(lhs, rhs)
    return _from_bits(np.where(out_of_range, np.uint64(0), x >> amount), ctx)


@evaluator("ShiftRightArithmetic")
def shift_right_arithmetic(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Shifts in copies of the sign bit; unsigned operands are shifted as their bit patterns."""
    x, amount, out_of_range = _shift_operands(lhs, rhs)
    signed = _signed_value(x, _bits(lhs))
    fill = np.where(signed < 0, np.int64(-1), np.int64(0))
    return _from_bits(np.where(out_of_range, fill, signed >> amount.astype(np.int64)).astype(np.uint64), ctx)


def _masked_amount_outcome(ev: Callable[..., np.ndarray], ctx: EvaluatorContext, lhs: np.ndarray,
                           rhs: np.ndarray) -> Outcomes:
    """An amount of the bit width or more: XLA's result, or the shift by the amount modulo the bit width (x86, ARM)."""
    out_of_range = _shift_operands(lhs, rhs)[2]
    modulo = _from_bits(_to_bits(rhs) % np.uint64(_bits(lhs)), ctx).astype(rhs.dtype)
    return {"shift_out_of_range": Allowed(out_of_range, {"masked_amount": ev(ctx, lhs, modulo)})}


@implementation_defined("ShiftLeft")
def shift_left_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _masked_amount_outcome(shift_left, ctx, lhs, rhs)


@implementation_defined("ShiftRightLogical")
def shift_right_logical_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    return _masked_amount_outcome(shift_right_logical, ctx, lhs, rhs)


@implementation_defined("ShiftRightArithmetic")
def shift_right_arithmetic_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> Outcomes:
    """Besides the amount: an unsigned operand with its top bit set may be shifted logically."""
    outcomes = _masked_amount_outcome(shift_right_arithmetic, ctx, lhs, rhs)
    if not _is_signed(lhs):
        top_bit = _to_bits(lhs) >= np.uint64(1 << (_bits(lhs) - 1))
        outcomes["unsigned_operand"] = Allowed(top_bit, {"logical": shift_right_logical(ctx, lhs, rhs)})
    return outcomes
