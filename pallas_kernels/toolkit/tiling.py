"""Block-size rules per platform, shared by all kernels.

TPU (Mosaic): the last two dimensions of a block must be multiples of the
native tile, ``(sublanes, 128)``, where the sublane count grows as the element
narrows: 8 for 32-bit, 16 for 16-bit, 32 for 8-bit types.  Blocks live in VMEM,
whose scoped default is 16 MiB on v5e and 32 MiB on v4/v5p/v6e.

GPU (Triton): every tensor in a kernel has power-of-two dimensions, ``dot``
operands need dimensions >= 16, and software-pipelined operand tiles must fit
in shared memory (227 KiB per block on Hopper).
"""

from __future__ import annotations

import numpy as np

TPU_LANES = 128
TPU_VMEM_BUDGET_BYTES = 12 * 1024 * 1024
"""VMEM we let one kernel's blocks use (below v5e's 16 MiB scoped default)."""

GPU_MIN_DOT_DIM = 16
GPU_SHARED_MEMORY_BYTES = 227 * 1024
"""Shared memory one thread block may use on Hopper (H100/H200)."""


def cdiv(a: int, b: int) -> int:
    """Ceiling division."""
    return -(-a // b)


def round_up(value: int, multiple: int) -> int:
    """Smallest multiple of ``multiple`` that is >= ``value``."""
    return cdiv(value, multiple) * multiple


def next_power_of_two(value: int) -> int:
    """Smallest power of two >= ``value`` (1 for values <= 1)."""
    return 1 if value <= 1 else 1 << (int(value) - 1).bit_length()


def tpu_sublanes(dtype: np.dtype | type) -> int:
    """Sublane multiple of the native TPU tile for ``dtype`` (8, 16 or 32)."""
    itemsize = np.dtype(dtype).itemsize
    return {4: 8, 2: 16, 1: 32}.get(itemsize, 8)


def tpu_tile(dtype: np.dtype | type) -> tuple[int, int]:
    """Native TPU tile ``(sublanes, lanes)`` for the last two dims of a block."""
    return tpu_sublanes(dtype), TPU_LANES


def fit_block(size: int, preferred: int, granule: int) -> int:
    """Block length for an axis of ``size`` elements.

    Returns ``preferred`` (rounded to ``granule``) for big axes, and the axis
    rounded up to ``granule`` when it is smaller, so small shapes are not padded
    to a huge block.  The caller pads the axis to a multiple of the result.
    """
    preferred = max(granule, round_up(preferred, granule))
    return min(preferred, round_up(max(size, 1), granule))


def fit_power_of_two_block(size: int, preferred: int, minimum: int) -> int:
    """Power-of-two block in ``[minimum, preferred]`` covering small axes tightly."""
    return max(minimum, min(preferred, next_power_of_two(size)))


def padded_size(size: int, block: int) -> int:
    """Axis length after padding ``size`` to a whole number of blocks."""
    return round_up(max(size, 1), block)
