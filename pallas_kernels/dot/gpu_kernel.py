"""Batched matmul for NVIDIA GPUs (Pallas Triton).

Grid ``(tiles, B)``: each program owns one ``bm x bn`` output tile and loops
over K in ``bk`` steps, accumulating in registers (f32, or int32 for int8);
Triton software-pipelines the operand loads through shared memory
(``num_stages``) and emits tensor-core MMAs (wgmma on Hopper).  Output tiles
are visited in groups of ``GROUP_M`` block-rows so neighbouring programs reuse
the same lhs/rhs tiles from L2.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

from pallas_kernels.dot.plan import PrecisionPair
from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape
from pallas_kernels.toolkit.platforms import triton_compiler_params
from pallas_kernels.toolkit.tiling import (
    GPU_MIN_DOT_DIM,
    GPU_SHARED_MEMORY_BYTES,
    cdiv,
    fit_power_of_two_block,
    padded_size,
)

GROUP_M = 8


@dataclasses.dataclass(frozen=True)
class GpuMatmulBlocks:
    bm: int
    bn: int
    bk: int
    num_warps: int
    num_stages: int

    def shared_memory_bytes(self, in_dtype: np.dtype) -> int:
        """Shared memory for ``num_stages`` buffered lhs and rhs tiles."""
        tile = (self.bm * self.bk + self.bk * self.bn) * np.dtype(in_dtype).itemsize
        return self.num_stages * tile


def choose_gpu_blocks(m: int, n: int, k: int, in_dtype: np.dtype) -> GpuMatmulBlocks:
    """Power-of-two tiles (>= 16) whose pipelined operands fit in shared memory.

    Defaults follow the usual Hopper Triton configurations: 128x256x64 for
    16-bit inputs, 128x128x32 for f32 (tf32 MMAs), 128x256x128 for int8.
    Skinny problems get narrow tiles so that more programs run in parallel.
    """
    itemsize = np.dtype(in_dtype).itemsize
    preferred_m, preferred_n, preferred_k = {
        1: (128, 256, 128), 2: (128, 256, 64), 4: (128, 128, 32),
    }[itemsize]
    bm = fit_power_of_two_block(m, preferred_m, GPU_MIN_DOT_DIM)
    if bm <= 64:  # skinny M: more, narrower column tiles
        preferred_n = 64
    bn = fit_power_of_two_block(n, preferred_n, GPU_MIN_DOT_DIM)
    bk = fit_power_of_two_block(k, preferred_k, GPU_MIN_DOT_DIM * (4 // min(itemsize, 4)))
    num_warps = 8 if bm * bn >= 128 * 256 else 4
    blocks = GpuMatmulBlocks(bm, bn, bk, num_warps=num_warps, num_stages=4)
    while (blocks.shared_memory_bytes(in_dtype) > GPU_SHARED_MEMORY_BYTES
           and blocks.num_stages > 2):
        blocks = dataclasses.replace(blocks, num_stages=blocks.num_stages - 1)
    return blocks


def _tile_coordinates(tile: jax.Array, tiles_m: int, tiles_n: int):
    """Grouped ("swizzled") order: GROUP_M block-rows sweep the columns together."""
    tiles_per_group = GROUP_M * tiles_n
    group = tile // tiles_per_group
    first_row = group * GROUP_M
    rows_in_group = jnp.minimum(tiles_m - first_row, GROUP_M)
    within = tile % tiles_per_group
    return first_row + within % rows_in_group, within // rows_in_group


def _matmul_kernel(lhs_ref, rhs_ref, out_ref, *, bk, precision, accumulator_dtype):
    k_steps = lhs_ref.shape[1] // bk

    def step(s, acc):
        start = pl.multiple_of(s * bk, bk)
        lhs = lhs_ref[:, pl.ds(start, bk)]
        rhs = rhs_ref[pl.ds(start, bk), :]
        return acc + jnp.dot(
            lhs, rhs, precision=precision, preferred_element_type=accumulator_dtype
        )

    acc = jnp.zeros(out_ref.shape, accumulator_dtype)
    acc = jax.lax.fori_loop(0, k_steps, step, acc)
    out_ref[...] = acc.astype(out_ref.dtype)


def gpu_dot_precision(pair: PrecisionPair, in_dtype: np.dtype) -> Any:
    """Triton maps DEFAULT/HIGH to tf32 and HIGHEST to IEEE f32, like XLA:GPU."""
    if np.dtype(in_dtype) == np.int8:
        return None
    return pair


def batched_matmul_gpu(
    lhs: jax.Array,
    rhs: jax.Array,
    *,
    out_dtype: np.dtype,
    accumulator_dtype: np.dtype,
    precision: PrecisionPair,
    interpret: Any = False,
    blocks: GpuMatmulBlocks | None = None,
) -> jax.Array:
    """``[B, M, K] x [B, K, N] -> [B, M, N]`` with the Triton kernel."""
    (batch, m, k), n = lhs.shape, rhs.shape[2]
    if blocks is None:
        blocks = choose_gpu_blocks(m, n, k, np.dtype(lhs.dtype))
    mp, np_, kp = (padded_size(m, blocks.bm), padded_size(n, blocks.bn),
                   padded_size(k, blocks.bk))
    lhs = pad_to_shape(lhs, (batch, mp, kp))
    rhs = pad_to_shape(rhs, (batch, kp, np_))
    tiles_m, tiles_n = cdiv(mp, blocks.bm), cdiv(np_, blocks.bn)
    coordinates = functools.partial(_tile_coordinates, tiles_m=tiles_m, tiles_n=tiles_n)

    def lhs_index(tile, b):
        return b, coordinates(tile)[0], 0

    def rhs_index(tile, b):
        return b, 0, coordinates(tile)[1]

    def out_index(tile, b):
        row, column = coordinates(tile)
        return b, row, column

    kernel = functools.partial(
        _matmul_kernel,
        bk=blocks.bk,
        precision=gpu_dot_precision(precision, lhs.dtype),
        accumulator_dtype=accumulator_dtype,
    )
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((batch, mp, np_), out_dtype),
        grid=(tiles_m * tiles_n, batch),
        in_specs=[
            pl.BlockSpec((None, blocks.bm, kp), lhs_index),
            pl.BlockSpec((None, kp, blocks.bn), rhs_index),
        ],
        out_specs=pl.BlockSpec((None, blocks.bm, blocks.bn), out_index),
        compiler_params=triton_compiler_params(blocks.num_warps, blocks.num_stages),
        interpret=interpret,
        name="pallas_dot_general_gpu",
    )(lhs, rhs)
    return crop_to_shape(out, (batch, m, n))
