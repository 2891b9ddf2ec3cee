"""Kernel bodies of select_and_scatter_add shared by the TPU and GPU variants.

Pass 1 (*select*) finds, per window, the row-major index of the first maximum
(``ge``) or minimum (``le``) among the window's operand elements; padding is
never selected, and a window made only of padding selects nothing (-1).
Pass 2 (*gather*, no atomics) computes every operand element once:
``grad[x] = sum over taps k of source[w] where sel[w] == k``, ``w`` being the
window whose tap ``k`` is ``x``.  In the phase layout, the taps landing on
phase ``p`` read the windows at a contiguous quotient range shifted by the
tap's quotient offset.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from pallas_kernels.pooling.geometry import WindowGeometry

Loader = Callable[[int], jax.Array]


def tap_validity(
    geometry: WindowGeometry, shape: Sequence[int], first_axis: int,
    starts: Sequence[jax.Array | int] | None = None,
) -> Callable[[int], jax.Array | None]:
    """``valid(k)``: mask over an output tile of windows whose tap k is real data.

    Middle dimension ``i`` of the tile is axis ``first_axis + i`` and starts at
    window ``starts[i]`` (0 by default).  None where no dimension is padded.
    """
    offsets = geometry.window_offsets()
    padded = [i for i, m in enumerate(geometry.middle) if m.low > 0 or m.high > 0]
    positions = {}
    for i in padded:
        m = geometry.middle[i]
        window = jax.lax.broadcasted_iota(jnp.int32, tuple(shape), first_axis + i)
        if starts is not None:
            window = window + starts[i]
        positions[i] = window * m.stride - m.low

    def valid(k: int) -> jax.Array | None:
        mask = None
        for i in padded:
            position = positions[i] + offsets[k][i]
            inside = (position >= 0) & (position < geometry.middle[i].size)
            mask = inside if mask is None else mask & inside
        return mask

    return valid


def select_taps(
    select: str, load_tap: Loader, valid: Callable[[int], jax.Array | None],
    num_taps: int, compare_dtype: np.dtype,
) -> jax.Array:
    """int32 index of the selected tap per window (-1: nothing selectable)."""
    best = load_tap(0).astype(compare_dtype)
    first_valid = valid(0)
    selected = jnp.zeros(best.shape, jnp.int32)
    if first_valid is not None:
        selected = jnp.where(first_valid, selected, -1)
    for k in range(1, num_taps):
        value = load_tap(k).astype(compare_dtype)
        take = value > best if select == "ge" else value < best
        mask = valid(k)
        if mask is not None:
            take = mask & (take | (selected < 0))
        best = jnp.where(take, value, best)
        selected = jnp.where(take, k, selected)
    return selected


def taps_by_phase(geometry: WindowGeometry) -> dict[tuple[int, ...], list[tuple[int, tuple[int, ...]]]]:
    """Phase combination -> [(tap index, quotient offsets)] of the taps landing there."""
    groups: dict[tuple[int, ...], list[tuple[int, tuple[int, ...]]]] = {
        phase: [] for phase in itertools.product(*(range(m.stride) for m in geometry.middle))}
    for k, tap in enumerate(geometry.taps()):
        phase = tuple(p for _, p in tap)
        groups[phase].append((k, tuple(q for q, _ in tap)))
    return groups


def gather_phase(
    taps: list[tuple[int, tuple[int, ...]]],
    load_selected: Callable[[tuple[int, ...]], jax.Array],
    load_source: Callable[[tuple[int, ...]], jax.Array],
    shape: Sequence[int], accumulator: np.dtype,
) -> jax.Array:
    """Sum of the source values of the windows that selected these positions."""
    acc = jnp.zeros(tuple(shape), accumulator)
    for k, quotients in taps:
        chosen = load_selected(quotients) == k
        acc = acc + jnp.where(chosen, load_source(quotients).astype(accumulator),
                              jnp.zeros((), accumulator))
    return acc


def low_halo(geometry: WindowGeometry) -> tuple[int, ...]:
    """Largest quotient offset of a tap, per middle dim (the windows' low padding)."""
    return tuple(((m.window - 1) * m.dilation) // m.stride for m in geometry.middle)


def halo_padding(geometry: WindowGeometry) -> list[tuple[int, int]]:
    """jnp.pad widths putting the windows at ``low_halo`` within ``Q + halo`` rows."""
    middle = [(h, m.quotient - m.out) for h, m in zip(low_halo(geometry), geometry.middle)]
    return [(0, 0), *middle, (0, 0)]


def pad_halo(x: jax.Array, geometry: WindowGeometry, value: int | float) -> jax.Array:
    """Windows array -> ``(B, Q_1 + halo_1, ..., C)`` with the windows at the halo."""
    widths = halo_padding(geometry)
    if all(lo == hi == 0 for lo, hi in widths):
        return x
    return jnp.pad(x, widths, constant_values=np.asarray(value, x.dtype))
