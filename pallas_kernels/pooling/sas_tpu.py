"""select_and_scatter_add for TPU (Mosaic): select pass, then gather pass.

Both passes use the reduce_window blocking (whole batch slices per step, see
``tpu_kernel``): pass 1 reads the operand once and writes the selected tap of
every window (int32); pass 2 reads the selections and the source once and
writes every element of the gradient once, phase by phase.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np
from jax.experimental import pallas as pl

from pallas_kernels.pooling.geometry import WindowGeometry
from pallas_kernels.pooling.select_body import (
    gather_phase,
    low_halo,
    pad_halo,
    select_taps,
    tap_validity,
    taps_by_phase,
)
from pallas_kernels.pooling.tpu_kernel import (
    VMEM_BUDGET_BYTES,
    VMEM_LIMIT_BYTES,
    TpuWindowBlocks,
    block_shapes,
    choose_tpu_blocks,
    tap_index,
    tiled_bytes,
)
from pallas_kernels.toolkit.platforms import tpu_compiler_params

INT32 = np.dtype(np.int32)


def _halo_block(geometry: WindowGeometry, blocks: TpuWindowBlocks) -> tuple[int, ...]:
    rows = (m.quotient + h for m, h in zip(geometry.middle, low_halo(geometry)))
    return (blocks.bb, *rows, blocks.bc)


def gather_vmem_bytes(geometry: WindowGeometry, blocks: TpuWindowBlocks,
                      source: np.dtype, accumulator: np.dtype) -> int:
    halo = _halo_block(geometry, blocks)
    in_block, _ = block_shapes(geometry, blocks)
    quotient_block = (blocks.bb, *(m.quotient for m in geometry.middle), blocks.bc)
    return (2 * (tiled_bytes(halo, INT32) + tiled_bytes(halo, source))
            + 2 * tiled_bytes(in_block, source) + 2 * tiled_bytes(quotient_block, accumulator))


def choose_sas_blocks(geometry: WindowGeometry, operand: np.dtype, source: np.dtype,
                      compare: np.dtype, accumulator: np.dtype) -> TpuWindowBlocks | None:
    """Blocks for both passes (the select blocks, shrunk until the gather fits)."""
    blocks = choose_tpu_blocks(geometry, operand, INT32, compare)
    while blocks is not None and gather_vmem_bytes(
            geometry, blocks, source, accumulator) > VMEM_BUDGET_BYTES:
        smaller = [d for d in range(1, blocks.bb) if geometry.batch % d == 0]
        blocks = TpuWindowBlocks(bb=smaller[-1], bc=blocks.bc) if smaller else None
    return blocks


def _index_map(rank: int):
    def index(b, c):
        return (b, *([0] * (rank - 2)), c)
    return index


def _select_kernel(x_ref, sel_ref, *, geometry, select, compare_dtype, lane_block):
    taps = geometry.taps()
    valid = tap_validity(geometry, sel_ref.shape, first_axis=1)

    def load_tap(k):
        return x_ref[tap_index(geometry, taps[k], lane_block)]

    sel_ref[...] = select_taps(select, load_tap, valid, len(taps), compare_dtype)


def phase_index(geometry: WindowGeometry, phase: tuple[int, ...],
                lane_block: int) -> tuple[Any, ...]:
    """Block index of every quotient at one phase combination."""
    index: list[Any] = [slice(None)]
    for p in phase[:-1]:
        index += [slice(None), p]
    return (*index, slice(None), pl.ds(phase[-1] * lane_block, lane_block))


def _gather_kernel(sel_ref, src_ref, o_ref, *, geometry, accumulator, lane_block):
    halo = low_halo(geometry)
    rows = [m.quotient for m in geometry.middle]
    shape = (o_ref.shape[0], *rows, lane_block)

    def window_index(quotients):
        return (slice(None), *(pl.ds(h - q, r) for h, q, r in zip(halo, quotients, rows)),
                slice(None))

    for phase, taps in taps_by_phase(geometry).items():
        acc = gather_phase(taps, lambda qs: sel_ref[window_index(qs)],
                           lambda qs: src_ref[window_index(qs)], shape, accumulator)
        o_ref[phase_index(geometry, phase, lane_block)] = acc.astype(o_ref.dtype)


def select_and_scatter_tpu(
    x: jax.Array, source: jax.Array, *, geometry: WindowGeometry, select: str,
    compare_dtype: np.dtype, accumulator: np.dtype, interpret: Any = False,
) -> jax.Array:
    """(phase-layout operand, halo-padded source) -> phase-layout gradient."""
    blocks = choose_sas_blocks(geometry, np.dtype(x.dtype), np.dtype(source.dtype),
                               compare_dtype, accumulator)
    if blocks is None:
        raise ValueError("no TPU block fits VMEM; the planner should have fallen back")
    in_block, out_block = block_shapes(geometry, blocks)
    grid = (geometry.batch // blocks.bb, geometry.lanes // blocks.bc)
    params = tpu_compiler_params(("parallel", "parallel"), vmem_limit_bytes=VMEM_LIMIT_BYTES)
    selected = pl.pallas_call(
        functools.partial(_select_kernel, geometry=geometry, select=select,
                          compare_dtype=compare_dtype, lane_block=blocks.bc),
        out_shape=jax.ShapeDtypeStruct(geometry.canonical_out_shape, INT32),
        grid=grid,
        in_specs=[pl.BlockSpec(in_block, _index_map(len(in_block)))],
        out_specs=pl.BlockSpec(out_block, _index_map(len(out_block))),
        compiler_params=params, interpret=interpret,
        name="pallas_select_and_scatter_select_tpu",
    )(x)
    selected = pad_halo(selected, geometry, -1)
    halo_block = _halo_block(geometry, blocks)
    halo_spec = pl.BlockSpec(halo_block, _index_map(len(halo_block)))
    return pl.pallas_call(
        functools.partial(_gather_kernel, geometry=geometry, accumulator=accumulator,
                          lane_block=blocks.bc),
        out_shape=jax.ShapeDtypeStruct(geometry.phase_shape, source.dtype),
        grid=grid,
        in_specs=[halo_spec, halo_spec],
        out_specs=pl.BlockSpec(in_block, _index_map(len(in_block))),
        compiler_params=params, interpret=interpret,
        name="pallas_select_and_scatter_gather_tpu",
    )(selected, source)
