"""reduce_window for TPU (Mosaic), on the phase layout (see ``geometry``).

Grid ``(B / bb, C / bc)``: each step holds ``bb`` whole batch slices (every
middle dimension, padding included) of ``bc`` lanes in VMEM, reads every tap
as a contiguous slice of the block, reduces in f32 / int32 and writes its
output block once.  The operand is read from HBM exactly once.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import jax
import numpy as np
from jax.experimental import pallas as pl

from pallas_kernels.pooling.combine import reduce_taps
from pallas_kernels.pooling.geometry import WindowGeometry
from pallas_kernels.toolkit.platforms import tpu_compiler_params
from pallas_kernels.toolkit.tiling import TPU_LANES, round_up, tpu_sublanes

VMEM_BUDGET_BYTES = 32 * 1024 * 1024
"""VMEM the blocks of one step may use (the scoped limit is raised to match)."""
VMEM_LIMIT_BYTES = 48 * 1024 * 1024
TARGET_BLOCK_BYTES = 2 * 1024 * 1024
LANE_BLOCK = 512


@dataclasses.dataclass(frozen=True)
class TpuWindowBlocks:
    bb: int  # batch slices per step
    bc: int  # lanes per step (all of C unless the last stride is 1)


def tiled_bytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    """VMEM bytes of a block once its last two dims are padded to native tiles."""
    dtype = np.dtype(dtype)
    if len(shape) == 1:
        shape = (1, *shape)
    *lead, rows, lanes = shape
    return (math.prod(lead) * round_up(rows, tpu_sublanes(dtype))
            * round_up(lanes, TPU_LANES) * dtype.itemsize)


def block_shapes(
    geometry: WindowGeometry, blocks: TpuWindowBlocks
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(phase-layout input block, output block) shapes."""
    phase = geometry.phase_shape
    last_stride = geometry.middle[-1].stride
    in_block = (blocks.bb, *phase[1:-1], last_stride * blocks.bc)
    out_block = (blocks.bb, *(m.out for m in geometry.middle), blocks.bc)
    return in_block, out_block


def vmem_bytes(geometry: WindowGeometry, blocks: TpuWindowBlocks, in_dtype: np.dtype,
               out_dtype: np.dtype, accumulator: np.dtype) -> int:
    """Double-buffered in/out blocks plus two accumulator-sized temporaries."""
    in_block, out_block = block_shapes(geometry, blocks)
    return (2 * tiled_bytes(in_block, in_dtype) + 2 * tiled_bytes(out_block, out_dtype)
            + 2 * tiled_bytes(out_block, accumulator))


def choose_tpu_blocks(geometry: WindowGeometry, in_dtype: np.dtype,
                      out_dtype: np.dtype, accumulator: np.dtype) -> TpuWindowBlocks | None:
    """Largest batch group near the target size that fits VMEM; None if none does."""
    lanes = geometry.lanes
    split_lanes = geometry.middle[-1].stride == 1 and lanes % LANE_BLOCK == 0
    bc = LANE_BLOCK if split_lanes else lanes
    best = None
    for bb in range(1, geometry.batch + 1):
        if geometry.batch % bb:
            continue
        blocks = TpuWindowBlocks(bb=bb, bc=bc)
        if vmem_bytes(geometry, blocks, in_dtype, out_dtype, accumulator) > VMEM_BUDGET_BYTES:
            break
        best = blocks
        if tiled_bytes(block_shapes(geometry, blocks)[0], in_dtype) >= TARGET_BLOCK_BYTES:
            break
    return best


def tap_index(geometry: WindowGeometry, tap: tuple[tuple[int, int], ...],
              lane_block: int) -> tuple[Any, ...]:
    """Block-relative index of one tap: contiguous slices at fixed phases."""
    index: list[Any] = [slice(None)]
    for m, (q, p) in zip(geometry.middle[:-1], tap[:-1]):
        index += [pl.ds(q, m.out), p]
    q, p = tap[-1]
    index += [pl.ds(q, geometry.middle[-1].out), pl.ds(p * lane_block, lane_block)]
    return tuple(index)


def _reduce_kernel(x_ref, o_ref, *, geometry, computation, init_value, accumulator,
                   lane_block):
    taps = geometry.taps()

    def load_tap(k):
        return x_ref[tap_index(geometry, taps[k], lane_block)]

    acc = reduce_taps(computation, load_tap, len(taps), init_value, x_ref.dtype,
                      accumulator)
    o_ref[...] = acc.astype(o_ref.dtype)


def reduce_window_tpu(
    x: jax.Array, *, geometry: WindowGeometry, computation: str, init_value: Any,
    accumulator: np.dtype, blocks: TpuWindowBlocks | None = None, interpret: Any = False,
) -> jax.Array:
    """Phase-layout operand -> ``(B, O_1, ..., O_M, C)`` windowed reduction."""
    dtype = np.dtype(x.dtype)
    blocks = blocks or choose_tpu_blocks(geometry, dtype, dtype, accumulator)
    if blocks is None:
        raise ValueError("no TPU block fits VMEM; the planner should have fallen back")
    in_block, out_block = block_shapes(geometry, blocks)
    rank_in, rank_out = len(in_block), len(out_block)

    def in_index(b, c):
        return (b, *([0] * (rank_in - 2)), c)

    def out_index(b, c):
        return (b, *([0] * (rank_out - 2)), c)

    kernel = functools.partial(
        _reduce_kernel, geometry=geometry, computation=computation,
        init_value=init_value, accumulator=accumulator, lane_block=blocks.bc)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(geometry.canonical_out_shape, dtype),
        grid=(geometry.batch // blocks.bb, geometry.lanes // blocks.bc),
        in_specs=[pl.BlockSpec(in_block, in_index)],
        out_specs=pl.BlockSpec(out_block, out_index),
        compiler_params=tpu_compiler_params(("parallel", "parallel"),
                                            vmem_limit_bytes=VMEM_LIMIT_BYTES),
        interpret=interpret,
        name="pallas_reduce_window_tpu",
    )(x)
