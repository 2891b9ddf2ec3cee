"""Seeded random values for generated cases, special values mixed in."""

from __future__ import annotations

import math
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
    return _held(dtype, [np.nan, np.inf, -np.inf, 0.0, -0.0, float(info.max), float(info.min),
                         float(info.smallest_subnormal), -float(info.smallest_subnormal), float(info.tiny),
                         -float(info.tiny)])


#: mantissa widths (bits after the point) whose rounding ties generated values hold: f4e2m1fn, the f8 types, bf16,
#: f16, f32 (and ReducePrecision's formats of those widths)
_MANTISSA_BITS = (0, 1, 2, 3, 7, 10, 23)
INTEGER = -1  # the halfway points between two integers (x.5: Round, RoundNearestEven)


def halfway_kinds(etype: PrimitiveType) -> list[tuple[int, int]]:
    """The halfway points a float type holds, as (kind, parity) pairs: the kind :data:`INTEGER` or a narrower
    mantissa width m of :data:`_MANTISSA_BITS` (the type needs m + 1 bits to hold a tie between two m-bit
    neighbours); the parity of the lower neighbour's last digit: 0, a tie that rounds to even toward zero (ties away
    from zero would differ), 1, one that rounds to even away from zero (ties toward zero would differ). Width 0 has
    only odd lower neighbours (1.5: between 1 and 2)."""
    if not etypes.is_float(etype):
        return []
    bits = int(ml_dtypes.finfo(etypes.etype_to_dtype(etype)).nmant)
    widths = [INTEGER] + [m for m in _MANTISSA_BITS if m + 1 <= bits]
    return [(kind, parity) for kind in widths for parity in (0, 1) if kind != 0 or parity == 1]


def halfway(value: float, kind: int, parity: int) -> float:
    """A point next to ``value``, of its sign and in its binade, halfway between two neighbours of a mantissa of
    ``kind`` bits (or two integers, for :data:`INTEGER`) whose lower one ends in a digit of ``parity``."""
    magnitude = abs(value)
    step = 1.0 if kind == INTEGER else 2.0 ** (math.floor(math.log2(magnitude)) - kind)
    lower = math.floor(magnitude / step)
    if lower % 2 != parity:
        lower += -1 if kind != INTEGER and lower + 1 == 2 ** (kind + 1) else 1
    return math.copysign(lower * step + step / 2, value)


def _held(dtype: Any, values: list[float]) -> list[float]:
    """The values ``dtype`` holds exactly (NaN when it has a NaN)."""
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
    """``flat`` with the regions the documents distinguish mixed in (unless a value range is given): special values
    (NaN, infinities, signed zeros, tiny and huge magnitudes of both signs); exact halfway points, each kind of
    :func:`halfway_kinds` in turn (all of them when the array has room: rounding ties of conversions, ReducePrecision
    and RoundNearestEven); and an exact tie, one element's value copied to another (Sort's stability, TopK's index
    order). Returned as an array of the type."""
    n = flat.size
    dtype = etypes.etype_to_dtype(etype)
    if specials and hint.get("special_values", True) and n >= 4 and "min" not in hint and "max" not in hint:
        flat = flat.astype(object)
        pool, kinds = special_values(etype), halfway_kinds(etype)
        k = min(len(pool), max(1, n // 3))
        order = rng.permutation(n)
        for p, c in zip(order[:k], rng.choice(len(pool), size=k, replace=False)):
            flat[p] = pool[c]
        start = int(rng.integers(len(kinds))) if kinds else 0
        h = min(len(kinds), max(1, 2 * n // 3), n - k - 1)
        for i, p in enumerate(order[k:k + h]):
            value = _held(dtype, [halfway(float(flat[p]), *kinds[(start + i) % len(kinds)])])
            flat[p] = value[0] if value and flat[p] != 0 else flat[p]
        flat[order[-1]] = flat[order[int(rng.integers(n - 1))]]  # the tie: onto a position no region took
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
