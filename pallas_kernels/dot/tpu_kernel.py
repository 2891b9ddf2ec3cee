"""Batched matmul for TPU (Mosaic).

Grid ``(B, M/bm, N/bn, K/bk)``; the K axis is innermost and "arbitrary", so
each output block stays resident while an f32 (or int32) accumulator in VMEM
scratch sums the K blocks.  The output is written once, at the last K step.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from pallas_kernels.dot.plan import PrecisionPair
from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape
from pallas_kernels.toolkit.platforms import tpu_compiler_params
from pallas_kernels.toolkit.tiling import (
    TPU_LANES,
    TPU_VMEM_BUDGET_BYTES,
    fit_block,
    padded_size,
    tpu_sublanes,
)

Precision = jax.lax.Precision


@dataclasses.dataclass(frozen=True)
class TpuMatmulBlocks:
    bm: int
    bn: int
    bk: int

    def vmem_bytes(self, in_dtype: np.dtype, out_dtype: np.dtype) -> int:
        """VMEM for double-buffered operands and output plus the accumulator."""
        operands = 2 * (self.bm * self.bk + self.bk * self.bn) * in_dtype.itemsize
        output = 2 * self.bm * self.bn * out_dtype.itemsize
        return operands + output + self.bm * self.bn * 4


def choose_tpu_blocks(
    m: int, n: int, k: int, in_dtype: np.dtype, out_dtype: np.dtype
) -> TpuMatmulBlocks:
    """Blocks that respect the (sublane, 128) tile and fit the VMEM budget."""
    in_dtype, out_dtype = np.dtype(in_dtype), np.dtype(out_dtype)
    row_granule = max(tpu_sublanes(in_dtype), tpu_sublanes(out_dtype))
    narrow = in_dtype.itemsize <= 2
    blocks = TpuMatmulBlocks(
        bm=fit_block(m, 512, row_granule),
        bn=fit_block(n, 1024 if narrow else 512, TPU_LANES),
        bk=fit_block(k, 1024 if narrow else 512, TPU_LANES),
    )
    while blocks.vmem_bytes(in_dtype, out_dtype) > TPU_VMEM_BUDGET_BYTES:
        if blocks.bk > 256:
            blocks = dataclasses.replace(blocks, bk=blocks.bk // 2)
        elif blocks.bn > 256:
            blocks = dataclasses.replace(blocks, bn=blocks.bn // 2)
        elif blocks.bm > 2 * row_granule:
            blocks = dataclasses.replace(blocks, bm=blocks.bm // 2)
        else:
            break
    return blocks


def tpu_dot_precision(pair: PrecisionPair, in_dtype: np.dtype) -> Any:
    """Mosaic knows DEFAULT (one bf16 pass) and HIGHEST (fp32) for f32 dots.

    HIGH (bf16x3 in XLA) is served by HIGHEST, which is at least as accurate.
    Narrow inputs take no precision.
    """
    if np.dtype(in_dtype) not in (np.float32, np.float16):
        return None
    if any(p in (Precision.HIGH, Precision.HIGHEST) for p in pair):
        return (Precision.HIGHEST, Precision.HIGHEST)
    return None


def _matmul_kernel(lhs_ref, rhs_ref, out_ref, acc_ref, *, precision, upcast):
    k_step = pl.program_id(3)

    @pl.when(k_step == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    lhs, rhs = lhs_ref[...], rhs_ref[...]
    if upcast:  # f16 has no native TPU matmul: compute in f32.
        lhs, rhs = lhs.astype(jnp.float32), rhs.astype(jnp.float32)
    acc_ref[...] += jnp.dot(
        lhs, rhs, precision=precision, preferred_element_type=acc_ref.dtype
    )

    @pl.when(k_step == pl.num_programs(3) - 1)
    def _store():
        out_ref[...] = acc_ref[...].astype(out_ref.dtype)


def batched_matmul_tpu(
    lhs: jax.Array,
    rhs: jax.Array,
    *,
    out_dtype: np.dtype,
    accumulator_dtype: np.dtype,
    precision: PrecisionPair,
    interpret: Any = False,
    blocks: TpuMatmulBlocks | None = None,
) -> jax.Array:
    """``[B, M, K] x [B, K, N] -> [B, M, N]`` with the TPU kernel."""
    (batch, m, k), n = lhs.shape, rhs.shape[2]
    if blocks is None:
        blocks = choose_tpu_blocks(m, n, k, lhs.dtype, np.dtype(out_dtype))
    mp, np_, kp = (padded_size(m, blocks.bm), padded_size(n, blocks.bn),
                   padded_size(k, blocks.bk))
    lhs = pad_to_shape(lhs, (batch, mp, kp))
    rhs = pad_to_shape(rhs, (batch, kp, np_))
    kernel = functools.partial(
        _matmul_kernel,
        precision=tpu_dot_precision(precision, lhs.dtype),
        upcast=lhs.dtype == jnp.float16,
    )
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=0,
        grid=(batch, mp // blocks.bm, np_ // blocks.bn, kp // blocks.bk),
        in_specs=[
            pl.BlockSpec((None, blocks.bm, blocks.bk), lambda b, i, j, s: (b, i, s)),
            pl.BlockSpec((None, blocks.bk, blocks.bn), lambda b, i, j, s: (b, s, j)),
        ],
        out_specs=pl.BlockSpec((None, blocks.bm, blocks.bn),
                               lambda b, i, j, s: (b, i, j)),
        scratch_shapes=[pltpu.VMEM((blocks.bm, blocks.bn), accumulator_dtype)],
    )
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((batch, mp, np_), out_dtype),
        grid_spec=grid_spec,
        compiler_params=tpu_compiler_params(
            ("parallel", "parallel", "parallel", "arbitrary")
        ),
        interpret=interpret,
        name="pallas_dot_general_tpu",
    )(lhs, rhs)
    return crop_to_shape(out, (batch, m, n))
