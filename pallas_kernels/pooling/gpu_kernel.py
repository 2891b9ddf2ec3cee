"""reduce_window for NVIDIA GPUs (Pallas Triton), on the phase layout.

One program per power-of-two output tile: for each tap it loads the tile's
inputs (a contiguous slice at a fixed phase, see ``geometry``) straight from
global memory with masked loads, reduces in registers (f32 / int32) and stores
the tile once.  Taps of neighbouring windows overlap, so repeated reads hit L1
/ L2: HBM traffic stays one read of the operand and one write of the result.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallas_kernels.pooling.combine import reduce_taps
from pallas_kernels.pooling.geometry import WindowGeometry
from pallas_kernels.pooling.gpu_tiles import GpuTiles, choose_gpu_tiles
from pallas_kernels.toolkit.platforms import triton_compiler_params

NUM_WARPS = 4


def phase_view(ref: Any, geometry: WindowGeometry, batch: Any, starts: list[Any],
               tap: tuple[tuple[int, int], ...], tiles: tuple[int, ...]) -> Any:
    """View of the phase-layout ``ref`` holding one tap of an output tile."""
    index: list[Any] = [batch]
    for start, tile, (q, p) in zip(starts[:-2], tiles[:-2], tap[:-1]):
        index += [pl.ds(start + q, tile), jnp.int32(p)]
    q, p = tap[-1]
    index += [pl.ds(starts[-2] + q, tiles[-2]),
              pl.ds(p * geometry.lanes + starts[-1], tiles[-1])]
    return ref.at[tuple(index)]


def output_view(ref: Any, batch: Any, starts: list[Any], tiles: tuple[int, ...]) -> Any:
    return ref.at[(batch, *(pl.ds(s, t) for s, t in zip(starts, tiles)))]


def _reduce_kernel(x_ref, o_ref, *, geometry, tiles, computation, init_value,
                   accumulator):
    batch, starts = tiles.decode(pl.program_id(0))
    mask = tiles.mask(starts)
    taps = geometry.taps()

    def load_tap(k):
        view = phase_view(x_ref, geometry, batch, starts, taps[k], tiles.tiles)
        return pltriton.load(view, mask=mask, other=None if mask is None else 0)

    acc = reduce_taps(computation, load_tap, len(taps), init_value, x_ref.dtype,
                      accumulator)
    pltriton.store(output_view(o_ref, batch, starts, tiles.tiles),
                   acc.astype(o_ref.dtype), mask=mask)


def reduce_window_gpu(
    x: jax.Array, *, geometry: WindowGeometry, computation: str, init_value: Any,
    accumulator: np.dtype, tiles: GpuTiles | None = None, interpret: Any = False,
) -> jax.Array:
    """Phase-layout operand -> ``(B, O_1, ..., O_M, C)`` windowed reduction."""
    out_shape = geometry.canonical_out_shape
    tiles = tiles or choose_gpu_tiles(out_shape[1:])
    kernel = functools.partial(
        _reduce_kernel, geometry=geometry, tiles=tiles, computation=computation,
        init_value=init_value, accumulator=accumulator)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(out_shape, x.dtype),
        grid=(tiles.programs(geometry.batch),),
        compiler_params=triton_compiler_params(NUM_WARPS, num_stages=1),
        interpret=interpret,
        name="pallas_reduce_window_gpu",
    )(x)
