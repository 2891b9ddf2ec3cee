"""Comparing a backend's result with the expected one, within the spec's tolerance."""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.hlo import etypes


def mismatch_mask(actual: Any, expected: Any, bound: Any) -> np.ndarray:
    """Boolean mask of elements that differ beyond ``bound`` (None: exact, signed zeros included).

    NaNs match NaNs (any payload); infinities must match exactly. A real zero matches a zero of its sign
    only (a tolerance does not excuse Sqrt(-0.0) = +0.0: IEEE 754 and XLA fix those signs); a zero part of
    a complex value matches a zero of either sign, which neither the documents nor XLA fix (XLA's
    exp(-0 - 0i) is 1 + 0i, C99's cexp gives 1 - 0i).

    A finite complex value is within the bound when its distance to the expected one is, ``|a - e| <= atol +
    rtol * |e|``, relative to the modulus (NumPy's ``isclose`` on complex numbers), or when each part is within
    the bound of that part (which ``atol`` alone can allow where the modulus' bound does not). The
    arithmetic of complex results bounds their error by the modulus: a part much smaller than the modulus is
    the difference of large terms (the imaginary part of a product, ``ad + bc``; the angle of ``exp(y log x)``
    times the modulus of a power), and XLA's own complex Mul (a fused multiply-add) and Pow move such a part by
    more than the bound of that part while staying within the bound of the modulus. A non-finite part is
    compared part by part, as real values are.
    """
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        raise ValueError(f"result shape {list(a.shape)} differs from expected {list(e.shape)}")
    et = etypes.dtype_to_etype(e.dtype)
    if not (etypes.is_float(et) or etypes.is_complex(et)):
        return a.astype(object) != e.astype(object) if a.dtype != e.dtype else a != e
    if etypes.is_complex(et):
        a64, e64 = a.astype(np.complex128), e.astype(np.complex128)
        parts = (_float_mismatch(a64.real, e64.real, bound, signed_zero=False)
                 | _float_mismatch(a64.imag, e64.imag, bound, signed_zero=False))
        if bound is None:
            return parts
        with np.errstate(all="ignore"):
            close = np.abs(a64 - e64) <= bound.atol + bound.rtol * np.abs(e64)
        return parts & ~(close & np.isfinite(a64) & np.isfinite(e64))
    with np.errstate(invalid="ignore"):  # NaN of narrow float types casts with a warning
        return _float_mismatch(a.astype(np.float64), e.astype(np.float64), bound)


def _float_mismatch(a: np.ndarray, e: np.ndarray, bound: Any, signed_zero: bool = True) -> np.ndarray:
    """``signed_zero``: a zero matches a zero of its own sign only."""
    both_nan = np.isnan(a) & np.isnan(e)
    one_nan = np.isnan(a) ^ np.isnan(e)
    if bound is None:
        same = (a == e) & ((np.signbit(a) == np.signbit(e)) | (not signed_zero))
        return ~(same | both_nan)
    inf_mismatch = (np.isinf(a) | np.isinf(e)) & (a != e)
    with np.errstate(all="ignore"):
        diff = np.abs(a - e)
        close = diff <= bound.atol + bound.rtol * np.abs(e)
    finite = ~(np.isnan(a) | np.isnan(e) | np.isinf(a) | np.isinf(e))
    zero_sign = (a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e)) & signed_zero
    return one_nan | inf_mismatch | (finite & ~close) | zero_sign


def describe_mismatch(actual: Any, expected: Any, mask: np.ndarray, limit: int = 5) -> str:
    a, e = np.asarray(actual), np.asarray(expected)
    idx = np.argwhere(mask) if mask.ndim else [()]
    parts = []
    for i in list(idx)[:limit]:
        key = tuple(i)
        parts.append(f"at {list(key)}: got {a[key]!r}, expected {e[key]!r}")
    more = int(mask.sum()) - len(parts)
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
