"""Reference evaluators of the conversion ops: ConvertElementType, BitcastConvertType, ReducePrecision.

``convert_array`` is the one element-type conversion of the reference (Iota reuses it):
floats are rounded once, to nearest even, from the exact source value; float -> integer
truncates toward zero, saturates out-of-range values and maps NaN to 0 (XLA's behaviour);
integer -> integer wraps (two's complement); complex -> real keeps the real part.
"""

from __future__ import annotations

import math

import numpy as np

from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, any_value, any_zero, int_limits
from backend.reference.elementwise import F32_TINY

Array = np.ndarray

_PART = {PrimitiveType.C64: PrimitiveType.F32, PrimitiveType.C128: PrimitiveType.F64}
# Source types whose values need more precision than f32 holds (XLA may round them through f32).
_WIDER_THAN_F32 = (PrimitiveType.F64, PrimitiveType.C128, PrimitiveType.S32, PrimitiveType.U32,
                   PrimitiveType.S64, PrimitiveType.U64)


def _etype(x: Array) -> PrimitiveType:
    return etypes.dtype_to_etype(x.dtype)


def _is_inexact(et: PrimitiveType) -> bool:
    return etypes.is_float(et) or etypes.is_complex(et)


def _real(x: Array) -> Array:
    """The value a real destination sees: the real part of complex, the value otherwise."""
    return x.real if etypes.is_complex(_etype(x)) else x


# -- rounding ----------------------------------------------------------------------------------
def _int_round_to_odd(v: int) -> float:
    """``v`` as f64, rounded to odd (exact below 2**53), so that one later rounding is correct."""
    m = abs(v)
    extra = m.bit_length() - 53
    if extra <= 0:
        return float(v)
    t = m >> extra
    if m & ((1 << extra) - 1):
        t |= 1
    return math.copysign(math.ldexp(t, extra), v)


def _f64_to_f32_round_to_odd(x: Array) -> Array:
    """f64 -> f32 rounded to odd: the f32 neighbour with an odd significand when inexact."""
    with np.errstate(all="ignore"):
        r = x.astype(np.float32)
        inexact = (r.astype(np.float64) != x) & ~np.isnan(x)
        even = (r.view(np.uint32) & np.uint32(1)) == 0
        toward = np.where(x > r, np.float32(np.inf), np.float32(-np.inf))
        return np.where(inexact & even, np.nextafter(r, toward), r)


def _round_float(x: Array, dst: PrimitiveType) -> Array:
    """A float64 array rounded once (to nearest even) to the float type ``dst``."""
    dtype = etypes.etype_to_dtype(dst)
    with np.errstate(all="ignore"):
        if dst in (PrimitiveType.F64, PrimitiveType.F32):
            return x.astype(dtype)
        out = _f64_to_f32_round_to_odd(x).astype(dtype)
    if dst == PrimitiveType.F4E2M1FN:  # no NaN encoding: XLA gives -0.0
        out = np.where(np.isnan(x), np.array(-0.0, dtype), out)
    return out


def _to_f64(x: Array, dst: PrimitiveType) -> Array:
    """Real values as float64 on their way to ``dst``: exact for floats; integers beyond 2**53
    rounded to nearest even for f64 itself, else to odd (so that the next rounding is the only one)."""
    et = _etype(x)
    if et in (PrimitiveType.S64, PrimitiveType.U64) and dst != PrimitiveType.F64:
        flat = [_int_round_to_odd(int(v)) for v in x.reshape(-1)]
        return np.array(flat, np.float64).reshape(x.shape)
    return x.astype(np.float64)


def _int_range(dst: PrimitiveType) -> tuple[int, int, float]:
    """The integer type's minimum, maximum and exclusive upper limit as an exact float (hi + 1: 2**63 for s64,
    where float(hi) would round up to 2**63 itself and count 2**63 as in range)."""
    signed = etypes.is_signed_int(dst)
    bits = etypes.bit_width(dst)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return lo, hi, math.ldexp(1.0, bits - signed)


def _outside_int_range(t: Array, dst: PrimitiveType) -> Array:
    """Where the truncated values ``t`` (f64) are NaN or outside ``dst``'s range."""
    lo, _, limit = _int_range(dst)
    return np.isnan(t) | (t >= limit) | (t < lo)


def _float_to_int(x: Array, dst: PrimitiveType) -> Array:
    """Truncate toward zero; NaN -> 0; out-of-range values saturate to the type's extremes."""
    lo, hi, limit = _int_range(dst)
    with np.errstate(all="ignore"):
        t = np.trunc(x)
    inter = np.uint64 if dst == PrimitiveType.U64 else np.int64
    safe = np.where(_outside_int_range(t, dst), 0.0, t).astype(inter)
    out = np.where(t >= limit, np.asarray(hi, inter), np.where(t < lo, np.asarray(lo, inter), safe))
    return out.astype(etypes.etype_to_dtype(dst))


def _int_to_int(x: Array, dst: PrimitiveType) -> Array:
    """Two's-complement wrap-around (the low bits are kept)."""
    bits = etypes.bit_width(dst)
    if bits >= 8:
        return x.astype(etypes.etype_to_dtype(dst))
    low = x.astype(np.int64) & ((1 << bits) - 1)
    if etypes.is_signed_int(dst):
        low = np.where(low >= 1 << (bits - 1), low - (1 << bits), low)
    return low.astype(etypes.etype_to_dtype(dst))


def convert_array(x: Array, dst: PrimitiveType) -> Array:
    """Element-wise conversion of ``x`` to ``dst`` with XLA's semantics (see the module doc)."""
    src = _etype(x)
    dtype = etypes.etype_to_dtype(dst)
    if src == PrimitiveType.PRED:
        x, src = x.astype(np.uint8), PrimitiveType.U8
    if etypes.is_complex(dst):
        if etypes.is_complex(src):
            return x.astype(dtype)
        return convert_array(x, _PART[dst]).astype(dtype)
    x = _real(x)
    src = _etype(x)
    if dst == PrimitiveType.PRED:
        return x != 0
    if etypes.is_int(dst):
        return _int_to_int(x, dst) if etypes.is_int(src) else _float_to_int(x.astype(np.float64), dst)
    return _round_float(_to_f64(x, dst), dst)


# -- ConvertElementType ------------------------------------------------------------------------
@evaluator("ConvertElementType")
def convert_element_type(ctx: EvaluatorContext, operand: Array) -> Array:
    return convert_array(operand, ctx.attr("new_element_type"))


def _tiny(x: Array) -> Array:
    """Nonzero finite values (either part of complex ones) below the smallest normal f32."""
    parts = (x.real, x.imag) if np.iscomplexobj(x) else (x,)
    out = np.zeros(x.shape, bool)
    for p in parts:
        a = np.abs(p.astype(np.float64))
        out |= (a > 0) & (a < F32_TINY)  # XLA's CPU backend flushes values below the smallest normal f32
    return out


def _through_f32(x: Array, dst: PrimitiveType) -> Array:
    """``x`` rounded to f32 first, then to ``dst`` (as XLA does for some type pairs)."""
    with np.errstate(all="ignore"):
        return _real(x).astype(np.float32).astype(etypes.etype_to_dtype(dst))


def _flush_tiny(x: Array) -> Array:
    """``x`` with the values (parts) below the smallest normal f32 in magnitude replaced by zeros of their sign."""
    if np.iscomplexobj(x):
        out = x.copy()
        out.real, out.imag = _flush_tiny(x.real), _flush_tiny(x.imag)
        return out
    if not _is_inexact(_etype(x)):
        return x
    with np.errstate(invalid="ignore"):
        wide = x.astype(np.float64)
        return np.where(_tiny(x), np.copysign(0.0, wide), wide).astype(x.dtype)


@implementation_defined("ConvertElementType")
def convert_element_type_outcomes(ctx: EvaluatorContext, operand: Array) -> dict[str, Allowed]:
    """Float -> int of NaN or out-of-range values: saturated (XLA), the x86 'integer indefinite' minimum, or any
    value (LLVM poison); a value between two powers of two -> f8e8m0fnu: the nearer (XLA) or the lower (IREE);
    values below the smallest normal f32: kept or flushed (XLA on CPU); wide -> narrow floats: rounded
    once or through f32 (XLA); NaN -> f4e2m1fn (no NaN): -0 (XLA) or +0; f4e2m1fn +-6 -> int: the value 6 or
    saturated as an infinity (XLA on CPU)."""
    src, dst = _etype(operand), ctx.attr("new_element_type")
    out_dtype = ctx.shape.numpy_dtype()
    real = _real(operand)
    outcomes = {}
    if _is_inexact(src) and etypes.is_int(dst):
        with np.errstate(all="ignore"):
            t = np.trunc(real.astype(np.float64))
        outside = _outside_int_range(t, dst)
        lo = _int_range(dst)[0]
        outcomes["float_to_int"] = Allowed(outside, {"indefinite": np.full(operand.shape, lo, out_dtype),
                                                     "any_value": any_value})
    if dst == PrimitiveType.F8E8M0FNU and not etypes.is_complex(src):
        outcomes["inexact_to_e8m0"] = _e8m0_outcomes(operand)
    if _is_inexact(src) or _is_inexact(dst):
        result = convert_array(operand, dst)
        mask = (_tiny(operand) if _is_inexact(src) else np.zeros(operand.shape, bool)) | \
            (_tiny(result) if _is_inexact(dst) else np.zeros(operand.shape, bool))
        outcomes["subnormal_flush"] = Allowed(mask, {"flush": _flush_tiny(convert_array(_flush_tiny(operand), dst))})
    if src in _WIDER_THAN_F32 and etypes.is_float(dst) and etypes.bit_width(dst) < 32:
        twice = _through_f32(operand, dst)
        once = convert_array(operand, dst).astype(np.float64)
        differs = ~((twice.astype(np.float64) == once) | (np.isnan(twice.astype(np.float64)) & np.isnan(once)))
        outcomes["double_rounding"] = Allowed(differs, {"through_f32": twice})
    if dst == PrimitiveType.F4E2M1FN and _is_inexact(src):
        with np.errstate(invalid="ignore"):
            nan = np.isnan(real.astype(np.float64))
        outcomes["no_nan_encoding"] = Allowed(nan, {"either_zero": any_zero})
    if src == PrimitiveType.F4E2M1FN and etypes.is_int(dst):
        value = operand.astype(np.float64)
        lo, hi = int_limits(out_dtype)
        saturated = np.where(value > 0, hi, lo).astype(out_dtype)
        outcomes["f4_max_to_int"] = Allowed(np.abs(value) == 6, {"saturate": saturated})
    return outcomes


def _e8m0_outcomes(operand: Array) -> Allowed:
    """Positive finite values that are no power of two within f8e8m0fnu's range [2^-127, 2^127]: the power of two
    below (rounded toward zero, the exponent kept) besides the nearer one."""
    with np.errstate(all="ignore"):
        x = operand.astype(np.float64)
        exponent = np.floor(np.log2(np.where(x > 0, x, 1.0)))
        lower = np.exp2(exponent)
    mask = np.isfinite(x) & (x >= 2.0**-127) & (x < 2.0**128) & (lower != x)
    return Allowed(mask, {"toward_zero": lower.astype(etypes.etype_to_dtype(PrimitiveType.F8E8M0FNU))})


# -- BitcastConvertType ------------------------------------------------------------------------
def _bit_patterns(x: Array) -> Array:
    """Each element's bit pattern as uint64 (sub-byte types: the low bits of their byte)."""
    width = etypes.bit_width(_etype(x))
    if width >= 8:
        return x.view(np.dtype(f"uint{width}")).astype(np.uint64)
    return x.view(np.uint8).astype(np.uint64) & np.uint64((1 << width) - 1)


def _from_patterns(bits: Array, dst: PrimitiveType) -> Array:
    width = etypes.bit_width(dst)
    container = np.dtype(f"uint{max(width, 8)}")
    return bits.astype(container).view(etypes.etype_to_dtype(dst))


def _bitcast_bytes(x: Array, dtype: np.dtype, in_bits: int, out_bits: int) -> Array:
    """Byte-sized types: a NumPy view of the little-endian bytes (as XLA on CPU)."""
    x = np.ascontiguousarray(x).reshape(x.shape)
    if in_bits > out_bits:
        return x.reshape(x.shape + (1,)).view(dtype)
    if in_bits < out_bits:
        return x.view(dtype).reshape(x.shape[:-1])
    return x.view(dtype)


def _bitcast_sub_byte(x: Array, dst: PrimitiveType, in_bits: int, out_bits: int) -> Array:
    """Sub-byte types: split or join bit patterns, element 0 in the least significant bits."""
    bits = _bit_patterns(x)
    if in_bits > out_bits:
        shifts = np.arange(0, in_bits, out_bits, dtype=np.uint64)
        bits = (bits[..., None] >> shifts) & np.uint64((1 << out_bits) - 1)
    elif in_bits < out_bits:
        shifts = np.arange(0, out_bits, in_bits, dtype=np.uint64)
        bits = np.bitwise_or.reduce(bits << shifts, axis=-1)
    return _from_patterns(bits, dst)


@evaluator("BitcastConvertType")
def bitcast_convert_type(ctx: EvaluatorContext, operand: Array) -> Array:
    dst = ctx.attr("new_element_type")
    in_bits, out_bits = etypes.bit_width(_etype(operand)), etypes.bit_width(dst)
    if in_bits % 8 == 0 and out_bits % 8 == 0:
        return _bitcast_bytes(operand, etypes.etype_to_dtype(dst), in_bits, out_bits)
    return _bitcast_sub_byte(operand, dst, in_bits, out_bits)


# -- ReducePrecision ---------------------------------------------------------------------------
#: Types XLA reduces on their own bit pattern: (exponent bits, mantissa bits).
_NATIVE = {PrimitiveType.F16: (5, 10), PrimitiveType.BF16: (8, 7), PrimitiveType.F32: (8, 23),
           PrimitiveType.F64: (11, 52)}


def _compute_type(et: PrimitiveType) -> PrimitiveType:
    """8- and 4-bit floats are reduced in f16 (f32 for f8e8m0fnu, beyond f16's range), then converted back."""
    if et in _NATIVE:
        return et
    return PrimitiveType.F32 if et == PrimitiveType.F8E8M0FNU else PrimitiveType.F16


def _reduce_bits(x: Array, exponent_bits: int, mantissa_bits: int) -> tuple[Array, Array, Array]:
    """XLA's bit-level reduce-precision on an f16/bf16/f32/f64 array.

    Also returns the masks of nonzero non-NaN elements sent to infinity / to zero by the
    exponent range (XLA flushes the reduced format's subnormals to zero).
    """
    src_e, src_m = _NATIVE[_etype(x)]
    nbits = 1 + src_e + src_m
    u = np.dtype(f"uint{nbits}").type
    bits = x.view(u).copy()
    if mantissa_bits < src_m:
        shift = src_m - mantissa_bits
        last = 1 << shift
        bias = u((last >> 1) - 1) + ((bits >> u(shift)) & u(1))
        bits = (bits + bias) & u(((1 << nbits) - 1) ^ (last - 1))
    over = under = np.zeros(x.shape, bool)
    if exponent_bits < src_e:
        exp_mask = u(((1 << src_e) - 1) << src_m)
        sign = bits & u(1 << (nbits - 1))
        src_bias, red_bias = (1 << (src_e - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        over = exponent > u((src_bias + red_bias) << src_m)
        under = exponent <= u((src_bias - red_bias) << src_m)
        bits = np.where(over, sign | exp_mask, np.where(under, sign, bits))
    out = bits.view(x.dtype)
    nan = np.isnan(x.astype(np.float32))
    keep = ~nan & (x != 0)
    return np.where(nan, x, out), over & keep, under & keep


@evaluator("ReducePrecision")
def reduce_precision(ctx: EvaluatorContext, operand: Array) -> Array:
    wide = etypes.etype_to_dtype(_compute_type(_etype(operand)))
    with np.errstate(all="ignore"):
        out, _, _ = _reduce_bits(operand.astype(wide), ctx.attr("exponent_bits"), ctx.attr("mantissa_bits"))
        return out.astype(operand.dtype)
