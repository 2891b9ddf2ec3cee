"""Differences from the reference that a differential search keeps finding and that are documented departures of
a backend (``docs/fuzz_findings.md``, one section each): the search reports a disagreement in one of them as a
``known departure``, not as a disagreement, so a search exits 0 when it finds nothing else.

Each departure names the ops and backends it concerns and the operands it concerns, as a predicate on the op's
operands and attributes as the op ran alone (narrow, so that another difference in the same op stays a finding).
``tests/test_fuzz.py`` keeps a program of each in ``XLA_DEPARTURES``, found again and matched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np

FINDINGS_PAGE = "docs/fuzz_findings.md"


@dataclasses.dataclass(frozen=True)
class Departure:
    name: str  # the section of docs/fuzz_findings.md (its heading's anchor)
    ops: frozenset[str]
    backends: frozenset[str]
    applies: Callable[[dict[str, Any], dict[str, Any]], bool]  # (operands, attributes) -> in the departure's domain
    summary: str


def arrays(value: Any) -> Iterator[np.ndarray]:
    """The arrays of an operand value (a tuple or list of them for a variadic operand)."""
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from arrays(v)
    elif value is not None:
        yield np.asarray(value)


def _numeric(a: np.ndarray) -> np.ndarray:
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) if a.dtype.kind in "fcV" or \
        a.dtype.name.startswith(("float", "bfloat")) else a


def holds_non_finite(*values: Any) -> bool:
    """Whether any of the values holds an infinity or a NaN (in a part of a complex number)."""
    for a in (x for v in values for x in arrays(v)):
        if a.dtype.kind in "biu":
            continue
        with np.errstate(all="ignore"):
            if not np.all(np.isfinite(_numeric(a))):
                return True
    return False


def holds_infinity(*values: Any) -> bool:
    """Whether any of the values holds an infinity (in a part of a complex number)."""
    for a in (x for v in values for x in arrays(v)):
        if a.dtype.kind not in "biu" and bool(np.any(np.isinf(_numeric(a)))):
            return True
    return False


def holds_nan(*values: Any) -> bool:
    for a in (x for v in values for x in arrays(v)):
        if a.dtype.kind not in "biu" and bool(np.any(np.isnan(_numeric(a)))):
            return True
    return False


def _floats(*values: Any) -> Iterator[np.ndarray]:
    for a in (x for v in values for x in arrays(v)):
        if a.dtype.kind in "fcV" or a.dtype.name.startswith(("float", "bfloat")):
            yield a


def _largest(a: np.ndarray) -> float:
    """The largest finite value of a float or complex array's (part) type."""
    return float(ml_dtypes.finfo(a.real.dtype if a.dtype.kind == "c" else a.dtype).max)


def holds_subnormal(*values: Any) -> bool:
    for a in _floats(*values):
        wide = np.abs(_numeric(a))
        tiny = float(ml_dtypes.finfo(a.real.dtype if a.dtype.kind == "c" else a.dtype).tiny)
        if bool(np.any((wide > 0) & (wide < tiny))):
            return True
    return False


def _complex(*values: Any) -> bool:
    return any(a.dtype.kind == "c" for v in values for a in arrays(v))


def _pow_overflows(inputs: dict[str, Any], attrs: dict[str, Any]) -> bool:
    """x^y = |x|^Re(y) e^(-Im(y) arg x) e^(i(...)): one of the two factors leaves the type."""
    x, y = (np.asarray(inputs[k]).astype(np.complex128) for k in ("lhs", "rhs"))
    if not _complex(inputs["lhs"]):
        return False
    limit = np.log(_largest(np.asarray(inputs["lhs"])))
    with np.errstate(all="ignore"):
        x, y = np.broadcast_arrays(x, y)
        parts = (np.abs(y.real * np.log(np.abs(x))), np.abs(y.imag * np.angle(x)))
    return any(bool(np.any(np.isfinite(p) & (p > limit))) for p in parts)


def _beyond(limit: Callable[[np.ndarray], float], *names: str) -> Callable[[dict[str, Any], dict[str, Any]], bool]:
    def applies(inputs: dict[str, Any], attrs: dict[str, Any]) -> bool:
        return any(bool(np.any(np.abs(_numeric(a)) > limit(a))) for a in _floats(*(inputs[n] for n in names)))
    return applies


def _incomplete_beta_edge(inputs: dict[str, Any], attrs: dict[str, Any]) -> bool:
    """a or b non-finite, not above the smallest normal value, or beyond the square root of the largest."""
    for a in _floats(inputs["a"], inputs["b"]):
        v, info = _numeric(a), ml_dtypes.finfo(a.dtype)
        with np.errstate(all="ignore"):
            if bool(np.any(~np.isfinite(v) | (v <= float(info.tiny)) | (v > np.sqrt(float(info.max))))):
                return True
    return False


def _zeta_extreme(inputs: dict[str, Any], attrs: dict[str, Any]) -> bool:
    """q^-x leaves the type (overflows or underflows) for an x above 1 and a positive q."""
    x, q = (np.asarray(inputs[k]).astype(np.float64) for k in ("x", "q"))
    limit = np.log(_largest(np.asarray(inputs["x"])))
    with np.errstate(all="ignore"):
        x, q = np.broadcast_arrays(x, q)
        power = np.abs(x * np.log(q))
    return bool(np.any((x > 1) & (q > 0) & np.isfinite(power) & (power > limit)))


def _cancelling_feature(inputs: dict[str, Any], attrs: dict[str, Any]) -> bool:
    """A feature whose sum is below 2^-20 of the sum of its magnitudes (or all zeros) in a type of 32 bits or fewer:
    summed in f32 (the jax backend's lowering; the reference sums exactly), its mean moves by more than the bound
    (or takes the other zero's sign)."""
    operand = np.asarray(inputs["operand"])
    if operand.dtype.itemsize > 4 or operand.ndim == 0:
        return False
    x = operand.astype(np.float64)
    axes = tuple(d for d in range(x.ndim) if d != attrs.get("feature_index", 0))
    with np.errstate(all="ignore"):
        total, magnitude = np.abs(x.sum(axis=axes)), np.abs(x).sum(axis=axes)
    finite = np.isfinite(magnitude)
    return bool(np.any(finite & ((magnitude == 0) | (total <= magnitude * 2.0 ** -20))))


def _igamma_near_a_large_mode(inputs: dict[str, Any], attrs: dict[str, Any]) -> bool:
    """a >= 256 and x within 10 sqrt(a) of a, in a type XLA evaluates in f32 (32 bits or fewer)."""
    if np.asarray(inputs["a"]).dtype.itemsize > 4:
        return False
    a, x = (np.asarray(inputs[k]).astype(np.float64) for k in ("a", "x"))
    with np.errstate(all="ignore"):
        a, x = np.broadcast_arrays(a, x)
        return bool(np.any((a >= 256) & np.isfinite(a) & (np.abs(x - a) <= 10 * np.sqrt(a))))


def _narrow_float(*values: Any) -> bool:
    """Any of the values of an 8- or 4-bit float type."""
    return any(a.dtype.itemsize == 1 for a in _floats(*values))


def _complex_real_parts_tie(inputs: dict[str, Any], attrs: dict[str, Any]) -> bool:
    """An element whose operand's real part equals min's or max's, or is NaN (complex operands)."""
    operand, low, high = (np.asarray(inputs[k]) for k in ("operand", "min", "max"))
    if operand.dtype.kind != "c":
        return False
    x, lo, hi = np.broadcast_arrays(operand.real, low.real, high.real)
    return bool(np.any((x == lo) | (x == hi) | np.isnan(x) | np.isnan(lo) | np.isnan(hi)))


CONV_OPS = frozenset({"Conv", "ConvWithGeneralPadding", "ConvWithGeneralDimensions", "ConvGeneral",
                      "ConvGeneralDilated"})
SORTING_OPS = frozenset({"Sort", "TopK", "ApproxTopK", "ApproxTopKFallback"})
JAX = frozenset({"jax", "pallas"})

DEPARTURES: tuple[Departure, ...] = (
    Departure("complex-pow-overflow", frozenset({"Pow"}), JAX, _pow_overflows,
              "complex x^y is NaN where |x|^Re(y) or e^(-Im(y) arg x) leaves the type, though x^y does not"),
    Departure("sort-keys-nan-or-subnormal", SORTING_OPS, JAX, lambda i, a: holds_nan(*i.values()) or
              holds_subnormal(*i.values()),
              "XLA on CPU compares subnormals as zeros, and a NaN key makes Lt/Gt no strict weak order"),
    Departure("random-gamma-grad-algorithm", frozenset({"RandomGammaGrad"}), JAX, lambda i, a: True,
              "XLA's algorithm for dx/da departs from the exact derivative (mpmath) outside a central region"),
    Departure("complex-conv-non-finite", CONV_OPS, JAX, lambda i, a: _complex(i["lhs"]) and
              holds_non_finite(i["lhs"], i["rhs"]),
              "complex convolutions with an inf or NaN: XLA's f32/c64 convolution reads padding as zeros and "
              "multiplies parts in another formula"),
    Departure("factorization-overflow", frozenset({"QR", "QrDecomposition"}), JAX,
              _beyond(lambda a: _largest(a) / 16, "operand"),
              "values within a factor 16 of the largest finite value: the column norms and R's entries overflow"),
    Departure("fft-non-finite", frozenset({"Fft"}), JAX, lambda i, a: holds_non_finite(i["operand"]),
              "an inf or NaN reaches every output: which parts stay finite depends on the FFT algorithm"),
    Departure("e8m0-has-no-zero", frozenset({"Imag"}), JAX,
              lambda i, a: np.asarray(i["operand"]).dtype == np.dtype(ml_dtypes.float8_e8m0fnu),
              "Imag of a real f8e8m0fnu array is zero, which the type cannot hold: XLA gives NaN, the reference the "
              "smallest value"),
    Departure("incomplete-beta-domain-edge", frozenset({"RegularizedIncompleteBeta"}), JAX, _incomplete_beta_edge,
              "a or b at the domain's edges (non-finite, subnormal, beyond sqrt(max)): XLA gives NaN"),
    Departure("householder-non-finite", frozenset({"ProductOfElementaryHouseholderReflectors"}), JAX,
              lambda i, a: holds_non_finite(i["a"], i["taus"]),
              "reflectors with an inf or NaN: inf - inf or inf x 0 by the order of the updates"),
    Departure("ragged-dot-non-finite", frozenset({"RaggedDot"}), JAX,
              lambda i, a: holds_non_finite(i["lhs"], i["rhs"]),
              "an inf or NaN in lhs or rhs: XLA computes every group's product and masks it (inf x 0 = NaN), and "
              "flushes subnormals"),
    Departure("zeta-extreme-power", frozenset({"Zeta"}), JAX, _zeta_extreme,
              "q^-x overflows or underflows: the reference gives inf or 0, XLA NaN"),
    Departure("batch-norm-f32-accumulation", frozenset({"BatchNormTraining"}), JAX, _cancelling_feature,
              "the jax backend's lowering sums in f32 (jax has no batch-norm op): a feature whose values cancel gets "
              "a mean off by more than the bound relative to the exact one, or a zero of the other sign"),
    Departure("igamma-large-a", frozenset({"Igamma", "Igammac"}), JAX, _igamma_near_a_large_mode,
              "a >= 256 and x near a in f32 (or narrower, evaluated in f32): XLA's series and continued fraction "
              "lose accuracy (Q(10240, 10240): 2.8e-3 relative, 1% at a = 50000)"),
    Departure("igamma-narrow-series", frozenset({"Igamma", "Igammac", "IgammaGradA"}), JAX,
              lambda i, a: _narrow_float(*i.values()),
              "8- and 4-bit floats: jax evaluates the series in the operand's own type (NaN, values above 1)"),
    Departure("f4-acos-asin-intermediates", frozenset({"Acos", "Asin"}), JAX,
              lambda i, a: any(x.dtype == np.dtype(ml_dtypes.float4_e2m1fn) for x in _floats(i["operand"])),
              "f4e2m1fn: XLA evaluates acos and asin with f4 intermediates (nonzero values outside [-1, 1])"),
    Departure("complex-clamp-real-parts", frozenset({"Clamp"}), JAX, _complex_real_parts_tie,
              "complex Clamp: XLA compares real parts only, so where they tie (or are NaN) the imaginary parts "
              "do not order the values"),
    Departure("svd-of-an-infinity-hangs", frozenset({"SVD"}), JAX,
              lambda i, a: holds_infinity(i["a"]) and not holds_nan(i["a"]),
              "a matrix holding an infinity (and no NaN): XLA's SVD on CPU, LAPACK's, may never return"),
    Departure("batch-norm-grad-negative-variance", frozenset({"BatchNormGrad"}), JAX,
              lambda i, a: bool(np.any(np.asarray(i["batch_var"]).astype(np.float64) + a.get("epsilon", 0) < 0)),
              "batch_var + epsilon < 0: a negative variance is outside the op's domain (sqrt of a negative)"),
)


def departure_of(finding: Any, backend: str) -> Departure | None:
    """The documented departure a finding is in, or None."""
    if finding is None or finding.inputs is None:
        return None
    for departure in DEPARTURES:
        if finding.op in departure.ops and backend in departure.backends and \
                departure.applies(finding.inputs, finding.attrs or {}):
            return departure
    return None
