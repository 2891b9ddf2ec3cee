"""Helpers for testing Pallas kernels (shared by dot, conv, reduce_window, ...).

* :func:`random_array` — fresh random inputs, never all zeros.
* :func:`assert_close_to_reference` — compare with a float64 NumPy reference by
  norm-wise relative error, with a tolerance per result dtype.
* :func:`assert_fully_written` — interpret mode fills kernel outputs with NaN
  (floats) or the dtype minimum (ints) before the kernel runs, so any element a
  kernel forgot to write shows up as such a poison value.
* :func:`assert_lowers_to_pallas` — lower for TPU or CUDA on this machine and
  check for a Pallas custom call and the absence of the XLA op itself.
* :func:`reference_dot_general` — ``lax.dot_general`` in float64 NumPy.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

# Norm-wise relative error allowed for a result of each dtype (CPU/interpret:
# f32 is accumulated in full f32).  Derived from the unit roundoff of the
# result type with headroom for accumulation order.
RELATIVE_TOLERANCE: dict[str, float] = {
    "bfloat16": 1.6e-2,
    "float16": 2e-3,
    "float32": 2e-5,
    "float64": 1e-12,
    "complex64": 2e-5,
}

PALLAS_CUSTOM_CALLS: dict[str, tuple[str, ...]] = {
    "tpu": ("tpu_custom_call",),
    "cuda": ("__gpu$xla.gpu.triton", "mosaic_gpu"),
}


def random_array(seed: int | jax.Array, shape: Sequence[int], dtype: Any) -> jax.Array:
    """Random values of ``dtype``: standard normal for floats, [-64, 64] for ints.

    ``seed`` is an int or a ``jax.random.key``.  Integer ranges keep int8
    products summed over small K inside int32.
    """
    key = jax.random.key(seed) if isinstance(seed, int) else seed
    dtype = jnp.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        info = jnp.iinfo(dtype)
        low, high = max(int(info.min), -64), min(int(info.max), 64)
        values = jax.random.randint(key, tuple(shape), low, high + 1, jnp.int32)
        values = jnp.where(values == 0, 1, values)  # never zero
        return values.astype(dtype)
    if jnp.issubdtype(dtype, jnp.complexfloating):
        real_key, imag_key = jax.random.split(key)
        real_dtype = jnp.finfo(dtype).dtype
        real = jax.random.normal(real_key, tuple(shape), real_dtype)
        imag = jax.random.normal(imag_key, tuple(shape), real_dtype)
        return (real + 1j * imag).astype(dtype)
    return jax.random.normal(key, tuple(shape), dtype)


def to_float64(x: Any) -> np.ndarray:
    """Exact float64 (or complex128) copy of ``x`` for references."""
    x = np.asarray(x)
    if np.iscomplexobj(x):
        return x.astype(np.complex128)
    return x.astype(np.float64)


def relative_error(actual: Any, expected_f64: np.ndarray) -> float:
    """max |actual - expected| / max |expected| (norm-wise, in float64)."""
    difference = np.max(np.abs(to_float64(actual) - expected_f64), initial=0.0)
    scale = np.max(np.abs(expected_f64), initial=0.0)
    return float(difference / scale) if scale > 0 else float(difference)


def assert_fully_written(actual: Any) -> None:
    """No poison values: no NaN (floats), no dtype minimum (32/64-bit signed ints).

    Narrow and unsigned integer results are not checked: their poison value
    (the dtype minimum) is too likely to be a real result.
    """
    values = np.asarray(actual)
    if np.issubdtype(values.dtype, np.integer):
        if values.dtype.itemsize < 4 or np.issubdtype(values.dtype, np.unsignedinteger):
            return  # the poison value is a common legitimate value here
        poisoned = values == np.iinfo(values.dtype).min
    else:
        poisoned = np.isnan(to_float64(values))
    count = int(np.count_nonzero(poisoned))
    assert count == 0, (
        f"{count} of {values.size} elements were never written "
        f"(first at {np.argwhere(poisoned)[0].tolist()})"
    )


def assert_close_to_reference(
    actual: Any,
    expected_f64: np.ndarray,
    dtype: Any,
    *,
    rtol: float | None = None,
) -> None:
    """``actual`` matches the float64 reference within ``dtype``'s tolerance.

    Integer dtypes must match exactly.  Shapes must agree and every element
    must have been written (see :func:`assert_fully_written`).
    """
    actual_np = np.asarray(actual)
    assert actual_np.shape == expected_f64.shape, (
        f"shape {actual_np.shape} != reference {expected_f64.shape}")
    assert_fully_written(actual_np)
    dtype = jnp.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.integer):
        mismatches = int(np.count_nonzero(actual_np.astype(np.int64) != expected_f64))
        assert mismatches == 0, f"{mismatches} integer elements differ"
        return
    tolerance = RELATIVE_TOLERANCE[dtype.name] if rtol is None else rtol
    error = relative_error(actual_np, expected_f64)
    assert error <= tolerance, (
        f"relative error {error:.3g} > {tolerance:.3g} for {dtype.name}")


def reference_dot_general(lhs: Any, rhs: Any, dimension_numbers: Any) -> np.ndarray:
    """``lax.dot_general`` semantics in float64 NumPy (int64 for integers)."""
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
    lhs_np, rhs_np = np.asarray(lhs), np.asarray(rhs)
    exact = np.int64 if np.issubdtype(lhs_np.dtype, np.integer) else None
    lhs_np = lhs_np.astype(exact) if exact else to_float64(lhs_np)
    rhs_np = rhs_np.astype(exact) if exact else to_float64(rhs_np)
    letters = iter(string.ascii_letters)
    lhs_labels = [next(letters) for _ in range(lhs_np.ndim)]
    rhs_labels = [next(letters) for _ in range(rhs_np.ndim)]
    for ld, rd in zip((*lhs_contract, *lhs_batch), (*rhs_contract, *rhs_batch),
                      strict=True):
        rhs_labels[rd] = lhs_labels[ld]
    batch = [lhs_labels[d] for d in lhs_batch]
    lhs_free = [lhs_labels[d] for d in range(lhs_np.ndim)
                if d not in lhs_contract and d not in lhs_batch]
    rhs_free = [rhs_labels[d] for d in range(rhs_np.ndim)
                if d not in rhs_contract and d not in rhs_batch]
    spec = (f"{''.join(lhs_labels)},{''.join(rhs_labels)}->"
            f"{''.join(batch + lhs_free + rhs_free)}")
    result = np.einsum(spec, lhs_np, rhs_np)
    return result if exact is None else result.astype(np.int64)


def lowered_text(fn: Callable[..., Any], *args: Any, platform: str) -> str:
    """StableHLO text of ``jax.jit(fn)`` lowered for ``platform`` on this host."""
    return jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,)).as_text()


def assert_lowers_to_pallas(
    fn: Callable[..., Any],
    *args: Any,
    platform: str,
    forbidden_ops: Sequence[str] = ("stablehlo.dot_general", "stablehlo.dot "),
) -> str:
    """Lowering ``fn`` for ``platform`` yields a Pallas kernel and no XLA op.

    ``forbidden_ops`` are searched outside the custom-call lines (whose
    serialized kernel bodies may mention op names).  Returns the module text.
    """
    text = lowered_text(fn, *args, platform=platform)
    markers = PALLAS_CUSTOM_CALLS[platform]
    assert any(marker in text for marker in markers), (
        f"no Pallas custom call ({' / '.join(markers)}) in the {platform} lowering")
    outside_kernels = "\n".join(
        line for line in text.splitlines() if "custom_call" not in line)
    for op in forbidden_ops:
        assert op not in outside_kernels, (
            f"the {platform} lowering still contains XLA's {op.strip()}")
    return text

