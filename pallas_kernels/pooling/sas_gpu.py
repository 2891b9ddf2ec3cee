"""select_and_scatter_add for NVIDIA GPUs (Pallas Triton), without atomics.

Pass 1: one program per power-of-two tile of windows finds the selected tap
of each (masked loads, as in ``gpu_kernel``).  Pass 2: one program per tile of
operand quotients computes, for every phase, the gradient of those elements
by gathering the selections and source values of the windows covering them,
and stores each element exactly once.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallas_kernels.pooling.geometry import WindowGeometry
from pallas_kernels.pooling.gpu_kernel import NUM_WARPS, output_view, phase_view
from pallas_kernels.pooling.gpu_tiles import choose_gpu_tiles
from pallas_kernels.pooling.select_body import (
    gather_phase,
    low_halo,
    pad_halo,
    select_taps,
    tap_validity,
    taps_by_phase,
)
from pallas_kernels.toolkit.platforms import triton_compiler_params


def _select_kernel(x_ref, sel_ref, *, geometry, tiles, select, compare_dtype):
    batch, starts = tiles.decode(pl.program_id(0))
    mask = tiles.mask(starts)
    taps = geometry.taps()
    valid = tap_validity(geometry, tiles.tiles, first_axis=0, starts=starts)

    def load_tap(k):
        view = phase_view(x_ref, geometry, batch, starts, taps[k], tiles.tiles)
        return pltriton.load(view, mask=mask, other=None if mask is None else 0)

    selected = select_taps(select, load_tap, valid, len(taps), compare_dtype)
    pltriton.store(output_view(sel_ref, batch, starts, tiles.tiles), selected, mask=mask)


def _gather_kernel(sel_ref, src_ref, o_ref, *, geometry, tiles, accumulator):
    batch, starts = tiles.decode(pl.program_id(0))
    mask = tiles.mask(starts)
    halo = low_halo(geometry)

    def load(ref, quotients, other):
        index = (batch, *(pl.ds(s + h - q, t) for s, h, q, t in
                          zip(starts[:-1], halo, quotients, tiles.tiles[:-1])),
                 pl.ds(starts[-1], tiles.tiles[-1]))
        return pltriton.load(ref.at[index], mask=mask, other=None if mask is None else other)

    for phase, taps in taps_by_phase(geometry).items():
        acc = gather_phase(taps, lambda qs: load(sel_ref, qs, -1),
                           lambda qs: load(src_ref, qs, 0), tiles.tiles, accumulator)
        view = phase_view(o_ref, geometry, batch, starts, tuple((0, p) for p in phase),
                          tiles.tiles)
        pltriton.store(view, acc.astype(o_ref.dtype), mask=mask)


def select_and_scatter_gpu(
    x: jax.Array, source: jax.Array, *, geometry: WindowGeometry, select: str,
    compare_dtype: np.dtype, accumulator: np.dtype, interpret: Any = False,
) -> jax.Array:
    """(phase-layout operand, halo-padded source) -> phase-layout gradient."""
    params = triton_compiler_params(NUM_WARPS, num_stages=1)
    out_shape = geometry.canonical_out_shape
    tiles = choose_gpu_tiles(out_shape[1:])
    selected = pl.pallas_call(
        functools.partial(_select_kernel, geometry=geometry, tiles=tiles, select=select,
                          compare_dtype=compare_dtype),
        out_shape=jax.ShapeDtypeStruct(out_shape, jnp.int32),
        grid=(tiles.programs(geometry.batch),),
        compiler_params=params, interpret=interpret,
        name="pallas_select_and_scatter_select_gpu",
    )(x)
    selected = pad_halo(selected, geometry, -1)
    quotients = (*(m.quotient for m in geometry.middle), geometry.lanes)
    gather_tiles = choose_gpu_tiles(quotients)
    return pl.pallas_call(
        functools.partial(_gather_kernel, geometry=geometry, tiles=gather_tiles,
                          accumulator=accumulator),
        out_shape=jax.ShapeDtypeStruct(geometry.phase_shape, source.dtype),
        grid=(gather_tiles.programs(geometry.batch),),
        compiler_params=params, interpret=interpret,
        name="pallas_select_and_scatter_gather_gpu",
    )(selected, source)
