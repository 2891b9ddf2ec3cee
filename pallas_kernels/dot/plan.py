"""Deciding whether a ``dot_general`` call runs the kernel, and how.

Any batch/contracting dimension numbers are canonicalized to a batched matmul
``[B, M, K] x [B, K, N] -> [B, M, N]``: the wrapper transposes lhs to
``(batch, free, contracting)`` and rhs to ``(batch, contracting, free)`` and
flattens each group; the result is reshaped to ``batch + lhs free + rhs free``,
which is ``lax.dot_general``'s output order.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from pallas_kernels.toolkit.decisions import KernelDecision

OP_NAME = "dot_general"

Precision = jax.lax.Precision
PrecisionPair = tuple[Precision, Precision]

# (lhs dtype, rhs dtype) -> output dtypes the kernel can produce.
_SUPPORTED_OUTPUTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("bfloat16", "bfloat16"): ("bfloat16", "float32"),
    ("float16", "float16"): ("float16", "float32"),
    ("float32", "float32"): ("float32",),
    ("int8", "int8"): ("int32",),
}


@dataclasses.dataclass(frozen=True)
class DotPlan:
    """How a ``dot_general`` call maps onto the batched-matmul kernel."""

    lhs_permutation: tuple[int, ...]
    rhs_permutation: tuple[int, ...]
    batch: int
    m: int
    k: int
    n: int
    result_shape: tuple[int, ...]
    input_dtype: np.dtype
    out_dtype: np.dtype
    accumulator_dtype: np.dtype
    precision: PrecisionPair


def _fallback(reason: str) -> KernelDecision:
    return KernelDecision.fallback(OP_NAME, reason)


def canonical_precision(precision: Any) -> PrecisionPair | None:
    """``precision`` as a (lhs, rhs) pair of ``lax.Precision``; None if unsupported."""
    if precision is None:
        return (Precision.DEFAULT, Precision.DEFAULT)
    if isinstance(precision, (str, Precision)):
        single = Precision(precision)
        return (single, single)
    if isinstance(precision, Sequence) and len(precision) == 2:
        try:
            pair = tuple(
                Precision.DEFAULT if p is None else Precision(p) for p in precision
            )
        except (ValueError, TypeError):
            return None
        return pair  # type: ignore[return-value]
    return None  # e.g. a DotAlgorithm / DotAlgorithmPreset


def _validate_dimension_numbers(
    lhs_shape: tuple[int, ...], rhs_shape: tuple[int, ...], dimension_numbers: Any
) -> str:
    try:
        (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    except (TypeError, ValueError):
        return f"malformed dimension_numbers {dimension_numbers!r}"
    groups = (lhs_contract, rhs_contract, lhs_batch, rhs_batch)
    if any(len(set(g)) != len(g) for g in groups):
        return "repeated dimension in dimension_numbers"
    if len(lhs_contract) != len(rhs_contract) or len(lhs_batch) != len(rhs_batch):
        return "lhs and rhs dimension_numbers have different lengths"
    for dims, rank in ((lhs_contract, len(lhs_shape)), (lhs_batch, len(lhs_shape)),
                       (rhs_contract, len(rhs_shape)), (rhs_batch, len(rhs_shape))):
        if any(not 0 <= d < rank for d in dims):
            return "dimension number out of range"
    if set(lhs_contract) & set(lhs_batch) or set(rhs_contract) & set(rhs_batch):
        return "a dimension is both batch and contracting"
    for ld, rd in zip(lhs_contract, rhs_contract, strict=True):
        if lhs_shape[ld] != rhs_shape[rd]:
            return "contracting dimension sizes differ"
    for ld, rd in zip(lhs_batch, rhs_batch, strict=True):
        if lhs_shape[ld] != rhs_shape[rd]:
            return "batch dimension sizes differ"
    return ""


def plan_dot_general(
    lhs: Any,
    rhs: Any,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> KernelDecision:
    """The kernel plan for ``lax.dot_general(lhs, rhs, ...)`` or a fallback reason."""
    if out_sharding is not None:
        return _fallback("out_sharding is not supported by the kernel")
    lhs_shape, rhs_shape = tuple(np.shape(lhs)), tuple(np.shape(rhs))
    lhs_dtype, rhs_dtype = np.dtype(lhs.dtype), np.dtype(rhs.dtype)
    if lhs_dtype != rhs_dtype:
        return _fallback(
            f"mixed input dtypes {lhs_dtype.name} x {rhs_dtype.name} are not supported"
        )
    out_dtype = lhs_dtype if preferred_element_type is None else np.dtype(
        preferred_element_type
    )
    allowed = _SUPPORTED_OUTPUTS.get((lhs_dtype.name, rhs_dtype.name))
    if allowed is None:
        return _fallback(
            f"input dtype {lhs_dtype.name} is not supported "
            "(kernel covers bfloat16, float16, float32 and int8)"
        )
    if out_dtype.name not in allowed:
        return _fallback(
            f"{lhs_dtype.name} inputs with output dtype {out_dtype.name} are not "
            f"supported (kernel produces {', '.join(allowed)})"
        )
    invalid = _validate_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    if invalid:
        return _fallback(f"invalid call: {invalid}")
    pair = canonical_precision(precision)
    if pair is None:
        return _fallback(f"precision {precision!r} (dot algorithms) is not supported")

    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_contract, rhs_contract = tuple(lhs_contract), tuple(rhs_contract)
    lhs_batch, rhs_batch = tuple(lhs_batch), tuple(rhs_batch)
    lhs_free = tuple(d for d in range(len(lhs_shape))
                     if d not in lhs_contract and d not in lhs_batch)
    rhs_free = tuple(d for d in range(len(rhs_shape))
                     if d not in rhs_contract and d not in rhs_batch)
    batch_shape = tuple(lhs_shape[d] for d in lhs_batch)
    lhs_free_shape = tuple(lhs_shape[d] for d in lhs_free)
    rhs_free_shape = tuple(rhs_shape[d] for d in rhs_free)
    contract_shape = tuple(lhs_shape[d] for d in lhs_contract)
    batch, m, n, k = (math.prod(s) for s in
                      (batch_shape, lhs_free_shape, rhs_free_shape, contract_shape))
    if 0 in (batch, m, n, k):
        return _fallback("an operand or the result is empty (a zero-size dimension)")

    accumulator = np.dtype(np.int32) if lhs_dtype == np.int8 else np.dtype(np.float32)
    return KernelDecision.kernel(OP_NAME, DotPlan(
        lhs_permutation=lhs_batch + lhs_free + lhs_contract,
        rhs_permutation=rhs_batch + rhs_contract + rhs_free,
        batch=batch, m=m, k=k, n=n,
        result_shape=batch_shape + lhs_free_shape + rhs_free_shape,
        input_dtype=lhs_dtype,
        out_dtype=out_dtype,
        accumulator_dtype=accumulator,
        precision=pair,  # type: ignore[arg-type]
    ))
