"""Padding inputs to whole blocks and cropping results.

Kernels never see partial blocks: the wrapper pads every blocked axis with
zeros (neutral for sums and products) and crops the result back, so a size that
is not a multiple of the block can never produce a wrong answer.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp


def pad_to_shape(x: jax.Array, shape: Sequence[int], value: float = 0) -> jax.Array:
    """Pad ``x`` at the high end of each axis up to ``shape`` with ``value``."""
    if tuple(x.shape) == tuple(shape):
        return x
    widths = [(0, target - size) for size, target in zip(x.shape, shape, strict=True)]
    if any(high < 0 for _, high in widths):
        raise ValueError(f"cannot pad {x.shape} down to {tuple(shape)}")
    return jnp.pad(x, widths, constant_values=jnp.asarray(value, x.dtype))


def crop_to_shape(x: jax.Array, shape: Sequence[int]) -> jax.Array:
    """Keep the leading ``shape`` corner of ``x`` (undoes :func:`pad_to_shape`)."""
    if tuple(x.shape) == tuple(shape):
        return x
    return x[tuple(slice(0, size) for size in shape)]
