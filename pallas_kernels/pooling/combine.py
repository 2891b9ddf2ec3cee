"""The binary reductions the kernels apply, and their identities."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

COMBINE: dict[str, Callable[[jax.Array, jax.Array], jax.Array]] = {
    "add": jnp.add, "max": jnp.maximum, "min": jnp.minimum, "mul": jnp.multiply,
}


def is_identity(computation: str, value: Any, dtype: np.dtype) -> bool:
    """Whether combining with ``value`` changes nothing (so it can be skipped)."""
    if computation == "add":
        return value == 0
    if computation == "mul":
        return value == 1
    dtype = np.dtype(dtype)
    if np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16":
        extreme = -np.inf if computation == "max" else np.inf
    else:
        info = np.iinfo(dtype)
        extreme = info.min if computation == "max" else info.max
    return value == extreme


def reduce_taps(
    computation: str, load_tap: Callable[[int], jax.Array], num_taps: int,
    init_value: Any, operand_dtype: np.dtype, accumulator_dtype: np.dtype,
) -> jax.Array:
    """``init (+) tap_0 (+) ... (+) tap_{n-1}`` in the accumulator dtype."""
    combine = COMBINE[computation]
    acc = load_tap(0).astype(accumulator_dtype)
    for k in range(1, num_taps):
        acc = combine(acc, load_tap(k).astype(accumulator_dtype))
    if not is_identity(computation, init_value, operand_dtype):
        acc = combine(acc, jnp.asarray(init_value, operand_dtype).astype(accumulator_dtype))
    return acc
