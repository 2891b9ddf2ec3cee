"""Random scatter inputs for the scatter kernel tests."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

ROWS = jax.lax.ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))


def draw_rows(rng: np.random.Generator, n: int, vocab: int, distribution: str) -> np.ndarray:
    """Row indices: uniform (with out-of-bounds ones), identical, or Zipf."""
    if distribution == "uniform":
        return rng.integers(-3, vocab + 3, size=n)
    if distribution == "identical":
        return np.full(n, vocab // 2)
    if distribution == "zipf":
        return np.minimum(rng.zipf(1.3, size=n) - 1, vocab + 1)  # a few out of bounds
    raise ValueError(distribution)


def values(rng: np.random.Generator, shape, dtype) -> jax.Array:
    """Small integers for int32 (exact products), normals otherwise."""
    if jnp.issubdtype(dtype, jnp.integer):
        return jnp.asarray(rng.integers(-3, 4, size=shape), dtype)
    return jnp.asarray(rng.normal(size=shape), dtype)


def row_case(seed: int, vocab: int, width: int, n: int, distribution: str, dtype):
    """(operand [V, D], indices [N, 1], updates [N, D])."""
    rng = np.random.default_rng(seed)
    indices = jnp.asarray(draw_rows(rng, n, vocab, distribution)[:, None], jnp.int32)
    return values(rng, (vocab, width), dtype), indices, values(rng, (n, width), dtype)
