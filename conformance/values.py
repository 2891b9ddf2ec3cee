"""Seeded random values for generated cases, special values mixed in."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType


def special_values(etype: PrimitiveType) -> list[Any]:
    """NaN, infinities, signed zeros, subnormals and extremes the type can hold."""
    dtype = etypes.etype_to_dtype(etype)
    if etype == PrimitiveType.PRED:
        return [True, False]
    if etypes.is_int(etype):
        info = ml_dtypes.iinfo(dtype)
        return [int(info.min), int(info.max), 0, 1] + ([-1] if info.min < 0 else [])
    if etypes.is_complex(etype):
        return [complex(np.nan, 0), complex(np.inf, 1), complex(-0.0, 0.0), complex(0, -np.inf)]
    info = ml_dtypes.finfo(dtype)
    values = [np.nan, np.inf, -np.inf, 0.0, -0.0, float(info.max), float(info.min), float(info.smallest_subnormal),
              -float(info.smallest_subnormal), float(info.tiny)]
    out = []
    for v in values:
        with np.errstate(all="ignore"):
            cast = np.array(v).astype(dtype)
        if cast.astype(np.float64) == v or (np.isnan(v) and np.isnan(cast.astype(np.float64))):
            out.append(v)
    return out


def random_array(rng: np.random.Generator, etype: PrimitiveType, dims: tuple[int, ...],
                 hint: dict[str, Any] | None = None, specials: bool = True) -> np.ndarray:
    """A random array of the type, with values in ``hint``'s ``[min, max]`` if given, and the
    matrix ``structure`` the hint names (see :data:`MATRIX_STRUCTURES`)."""
    hint = hint or {}
    if hint.get("structure"):
        plain = random_array(rng, etype, dims, {k: v for k, v in hint.items() if k != "structure"}, specials)
        return MATRIX_STRUCTURES[hint["structure"]](plain)
    dtype = etypes.etype_to_dtype(etype)
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    lo, hi = hint.get("min"), hint.get("max")
    if etype == PrimitiveType.PRED:
        flat = rng.integers(0, 2, n).astype(bool)
    elif etypes.is_int(etype):
        info = ml_dtypes.iinfo(dtype)
        if hint.get("full_range"):  # anywhere in the type's range
            wide = np.uint64 if etypes.is_unsigned_int(etype) else np.int64
            flat = rng.integers(int(info.min), int(info.max), n, dtype=wide, endpoint=True)
            return _with_specials(rng, etype, flat.astype(object), hint, specials, dims)
        lo = int(info.min) if lo is None else max(int(lo), int(info.min))
        hi = int(min(info.max, 100)) if hi is None else min(int(hi), int(info.max))
        lo = max(lo, -100) if hint.get("min") is None else lo
        flat = rng.integers(lo, hi + 1, n, dtype=np.int64)
    elif etypes.is_complex(etype):
        scale = float(hint.get("scale", 3.0))
        flat = rng.normal(0, scale, n) + 1j * rng.normal(0, scale, n)
    else:
        if lo is not None or hi is not None:
            flat = rng.uniform(float(lo if lo is not None else -10), float(hi if hi is not None else 10), n)
        else:
            flat = rng.normal(0, float(hint.get("scale", 3.0)), n)
    return _with_specials(rng, etype, np.asarray(flat, dtype=object if etypes.is_int(etype) else None), hint,
                          specials, dims)


def _with_specials(rng: np.random.Generator, etype: PrimitiveType, flat: np.ndarray, hint: dict[str, Any],
                   specials: bool, dims: tuple[int, ...]) -> np.ndarray:
    """``flat`` with special values mixed in (unless a value range is given), as an array of the type."""
    n = flat.size
    dtype = etypes.etype_to_dtype(etype)
    if specials and hint.get("special_values", True) and n >= 4 and "min" not in hint and "max" not in hint:
        pool = special_values(etype)
        k = min(len(pool), max(1, n // 3))
        positions = rng.choice(n, size=k, replace=False)
        chosen = rng.choice(len(pool), size=k, replace=False)
        flat = flat.astype(object)
        for p, c in zip(positions, chosen):
            flat[p] = pool[c]
    with np.errstate(all="ignore"):
        if etypes.is_int(etype):
            wide = np.uint64 if etypes.is_unsigned_int(etype) else np.int64
            arr = np.array([int(x) for x in flat], dtype=wide).astype(dtype)
        else:
            arr = np.array(list(flat), dtype=np.complex128 if etypes.is_complex(etype)
                           else np.bool_ if etype == PrimitiveType.PRED else np.float64).astype(dtype)
    return arr.reshape(dims)


def _positive_definite(m: np.ndarray) -> np.ndarray:
    """m . m^H + n I for each n x n matrix m: Hermitian, eigenvalues in [n, n + ||m||_2^2]."""
    wide = m.astype(np.complex128 if np.iscomplexobj(m) else np.float64)
    n = m.shape[-1]
    return (wide @ np.conj(np.swapaxes(wide, -1, -2)) + n * np.eye(n)).astype(m.dtype)


def _diagonally_dominant(m: np.ndarray) -> np.ndarray:
    """m + 2n I for each n x n matrix m: with |m_ij| <= 1 every triangle of it is well conditioned."""
    wide = m.astype(np.complex128 if np.iscomplexobj(m) else np.float64)
    n = m.shape[-1]
    return (wide + 2 * n * np.eye(n)).astype(m.dtype)


def _positive_definite_two_triangles(m: np.ndarray) -> np.ndarray:
    """A positive-definite matrix P (:func:`_positive_definite`) on and below the diagonal, and P's entries
    halved above it. Read from its lower triangle it is P; read from its upper one it is the Hermitian
    (P + diag(P)) / 2, positive definite too (a convex combination of P and its diagonal) but another matrix, so a
    backend that reads the wrong triangle gives another factor and fails by value (a symmetric input hides it)."""
    p = _positive_definite(m).astype(np.complex128 if np.iscomplexobj(m) else np.float64)
    return (np.tril(p) + 0.5 * np.triu(p, 1)).astype(m.dtype)


#: Matrix structures a generator's value hint may ask for (``structure: name``), applied to each
#: matrix of the two minor dimensions of random values.
MATRIX_STRUCTURES = {"positive_definite": _positive_definite, "diagonally_dominant": _diagonally_dominant,
                     "positive_definite_two_triangles": _positive_definite_two_triangles}
