"""Reference evaluators of the element-wise ops.

Floating-point results are computed in float64 (complex128) and rounded once to the result
type, so the reference is as exact as the type allows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import etypes
from backend.reference import EvaluatorContext


def complex_of(real: np.ndarray, imag: np.ndarray, dtype: Any = None) -> np.ndarray:
    """The complex array of two parts, each kept as it is (``real + 1j * imag`` is not: 1j * inf is NaN + inf i,
    a NaN in the real part)."""
    real, imag = np.asarray(real), np.asarray(imag)
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype or np.result_type(real, imag, np.complex64))
    out.real, out.imag = real, imag
    return out


def lexicographic_extremum(lhs: np.ndarray, rhs: np.ndarray, greater: bool) -> np.ndarray:
    """Complex Max (``greater``) / Min, as XLA's Max and Min order complex values: lhs where it compares greater /
    less than rhs by (real, imaginary), else rhs (a comparison with a NaN part is false, so rhs). Clamp composes them."""
    a, b = (lhs.real, lhs.imag), (rhs.real, rhs.imag)
    if not greater:
        a, b = b, a
    return np.where((a[0] > b[0]) | ((a[0] == b[0]) & (a[1] > b[1])), lhs, rhs)


def widen(x: np.ndarray) -> np.ndarray:
    """A value-preserving wide copy: f64, c128, int64, uint64 (PRED stays bool)."""
    et = etypes.dtype_to_etype(x.dtype)
    if etypes.is_complex(et):
        return x.astype(np.complex128)
    if etypes.is_float(et):
        return x.astype(np.float64)
    if etypes.is_signed_int(et):
        return x.astype(np.int64)
    if etypes.is_unsigned_int(et):
        return x.astype(np.uint64)
    return x.astype(np.bool_)


def in_wide_precision(fn: Callable[..., Any], ctx: EvaluatorContext, *xs: np.ndarray) -> np.ndarray:
    """Apply ``fn`` with floats widened to f64 / c128, then round to the result type."""
    out_dtype = ctx.shape.numpy_dtype()
    wide = [x.astype(np.complex128) if etypes.is_complex(etypes.dtype_to_etype(x.dtype))
            else x.astype(np.float64) if etypes.is_float(etypes.dtype_to_etype(x.dtype)) else x for x in xs]
    with np.errstate(all="ignore"):
        out = np.asarray(fn(*wide))
        if out_dtype == ml_dtypes.float4_e2m1fn:  # no NaN encoding: ml_dtypes picks the zero by the NaN's sign bit,
            out = np.where(np.isnan(out), 0.0, out)  # which the platform chooses; the reference's choice is +0
        return out.astype(out_dtype)


def exact(fn: Callable[..., Any], ctx: EvaluatorContext, *xs: np.ndarray) -> np.ndarray:
    """Apply ``fn`` in the operands' own type (integers wrap as two's complement)."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(*xs)).astype(ctx.shape.numpy_dtype())


def by_kind(ctx: EvaluatorContext, x: np.ndarray, fn: Callable[..., Any], *rest: np.ndarray) -> np.ndarray:
    """Floats and complex widened; integers exact."""
    et = etypes.dtype_to_etype(x.dtype)
    if etypes.is_float(et) or etypes.is_complex(et):
        return in_wide_precision(fn, ctx, x, *rest)
    return exact(fn, ctx, x, *rest)


#: the smallest normal f32: a flush-to-zero / denormals-are-zero mode acts on f32 and f64 arithmetic only
F32_TINY = float(np.finfo(np.float32).tiny)


def flush_bound(dtype: Any) -> float:
    """The magnitude below which a nonzero value of ``dtype`` may be flushed: its smallest normal value, but never
    above f32's (XLA on the CPU computes f16, f8 and f4 through f32, where their subnormals are normal values, and
    keeps them: f8e4m3fn 2^-5 * 2^-3 = 2^-8 on jax 0.10.2; bf16 subnormals are f32 subnormals and are flushed)."""
    return min(float(ml_dtypes.finfo(dtype).tiny), F32_TINY)


def subnormal_mask(*xs: np.ndarray) -> np.ndarray:
    """Where any of the (broadcast-compatible) arrays holds a value a flush mode may flush (see :func:`flush_bound`):
    a subnormal f64, f32 or bf16 value.

    Complex values count when either part does; non-float arrays never do. XLA on the
    CPU flushes subnormals to zero, which the specs declare implementation-defined.
    """
    out = np.zeros(np.broadcast_shapes(*(x.shape for x in xs)), np.bool_)
    for x in xs:
        et = etypes.dtype_to_etype(x.dtype)
        if etypes.is_complex(et):
            out |= subnormal_mask(x.real) | subnormal_mask(x.imag)
        elif etypes.is_float(et):
            with np.errstate(invalid="ignore"):
                magnitude = np.abs(x.astype(np.float64))
            out |= (magnitude > 0) & (magnitude < flush_bound(x.dtype))
    return out
