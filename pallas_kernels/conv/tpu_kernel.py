"""Implicit-GEMM and depthwise convolution for TPU (Mosaic).

Same flat phase layout as the GPU variant (see :mod:`pallas_kernels.conv.gpu_kernel`).
The input stays in HBM (``memory_space=ANY``): for output rows
``[i*bm, (i+1)*bm)`` the kernel DMAs the halo'd window of ``bm + max_offset``
rows of every phase into VMEM once, then each filter tap is a static shifted
slice of that window fed to one MXU dot (``[bm, C] x [C, bo]``) accumulated in
an f32 VMEM scratch.  The ``O`` axis is innermost and "arbitrary" so the window
is fetched at ``j == 0`` and reused for every output-channel block.  Depthwise
windows hold only the ``bo`` channels of block ``j`` and use VPU multiply-adds.
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
from pallas_kernels.dot.tpu_kernel import tpu_dot_precision
from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape
from pallas_kernels.toolkit.platforms import tpu_compiler_params
from pallas_kernels.toolkit.tiling import (
    TPU_LANES,
    TPU_VMEM_BUDGET_BYTES,
    cdiv,
    fit_block,
    padded_size,
    round_up,
    tpu_sublanes,
)
from pallas_kernels.toolkit.windows import FlatWindows


@dataclasses.dataclass(frozen=True)
class TpuConvBlocks:
    bm: int
    bo: int

    def vmem_bytes(self, phases: int, max_offset: int, channels: int, taps: int,
                   in_dtype: np.dtype, out_dtype: np.dtype, depthwise: bool) -> int:
        """Window + double-buffered filter and output blocks + accumulator."""
        item = np.dtype(in_dtype).itemsize
        window_lanes = self.bo if depthwise else round_up(channels, TPU_LANES)
        window = phases * (self.bm + max_offset + 16) * window_lanes * item
        filt = 2 * taps * (8 if depthwise else channels) * self.bo * item
        out = 2 * self.bm * self.bo * np.dtype(out_dtype).itemsize
        return window + filt + out + self.bm * self.bo * 4


def choose_tpu_conv_blocks(rows: int, phases: int, max_offset: int, channels: int,
                           out_channels: int, taps: int, in_dtype: np.dtype,
                           out_dtype: np.dtype, depthwise: bool) -> TpuConvBlocks | None:
    """Blocks that fit the VMEM budget (None when none does).

    ``bm`` splits the output rows into near-equal sublane-aligned tiles, so the
    flat grid is barely padded.
    """
    granule = max(tpu_sublanes(in_dtype), tpu_sublanes(out_dtype))
    bo = fit_block(out_channels, 128 if depthwise else 256, TPU_LANES)
    preferred = 512
    while True:
        bm = round_up(cdiv(rows, cdiv(rows, preferred)), granule)
        blocks = TpuConvBlocks(bm, bo)
        if blocks.vmem_bytes(phases, max_offset, channels, taps, in_dtype, out_dtype,
                             depthwise) <= TPU_VMEM_BUDGET_BYTES:
            return blocks
        if bo > TPU_LANES:
            bo //= 2
        elif preferred > 2 * granule:
            preferred //= 2
        else:
            return None


def _conv_kernel(x_hbm, w_ref, out_ref, window, acc_ref, sem, *, taps, bm, bo,
                 precision, upcast, depthwise):
    g, n, i, j = (pl.program_id(axis) for axis in range(4))

    def fetch():
        channels = pl.ds(pl.multiple_of(j * bo, bo), bo) if depthwise else slice(None)
        source = x_hbm.at[g, n, :, pl.ds(pl.multiple_of(i * bm, 8), window.shape[1]),
                          channels]
        copy = pltpu.make_async_copy(source, window, sem)
        copy.start()
        copy.wait()

    if depthwise:
        fetch()
    else:
        pl.when(j == 0)(fetch)
    acc_ref[...] = jnp.zeros_like(acc_ref)
    for t, (phase, offset) in enumerate(taps):
        rows = window[phase, pl.ds(offset, bm), :]
        weights = w_ref[t]
        if upcast or depthwise:
            rows, weights = rows.astype(jnp.float32), weights.astype(jnp.float32)
        if depthwise:
            acc_ref[...] += rows * weights
        else:
            acc_ref[...] += jnp.dot(rows, weights, precision=precision,
                                    preferred_element_type=jnp.float32)
    out_ref[...] = acc_ref[...].astype(out_ref.dtype)


def conv_tpu(
    x: jax.Array,
    w: jax.Array,
    *,
    windows: FlatWindows,
    out_dtype: np.dtype,
    precision: PrecisionPair,
    depthwise: bool,
    interpret: Any = False,
    blocks: TpuConvBlocks | None = None,
) -> jax.Array:
    """Flat-phase convolution ``[G, N, P, L, C] * [G, T, C, O] -> [G, N, out_rows, O]``."""
    groups, batch, phases, _, channels = x.shape
    taps, out_rows, max_offset = windows.taps, windows.out_rows, windows.max_offset
    n_taps, out_channels = w.shape[1], w.shape[-1]
    if blocks is None:
        blocks = choose_tpu_conv_blocks(out_rows, phases, max_offset, channels,
                                        out_channels, n_taps, x.dtype,
                                        np.dtype(out_dtype), depthwise)
        if blocks is None:
            raise ValueError("convolution blocks do not fit in TPU VMEM")
    rows_p = padded_size(out_rows, blocks.bm)
    out_p = padded_size(out_channels, blocks.bo)
    window_rows = round_up(blocks.bm + max_offset, 8)
    length = rows_p - blocks.bm + window_rows
    if depthwise:
        x = pad_to_shape(x, (groups, batch, phases, length, out_p))
        w = pad_to_shape(w, (groups, n_taps, 1, out_p))
        window_channels, w_block = blocks.bo, (None, n_taps, 1, blocks.bo)
    else:
        channels_p = round_up(channels, tpu_sublanes(x.dtype))
        x = pad_to_shape(x, (groups, batch, phases, length, channels_p))
        w = pad_to_shape(w, (groups, n_taps, channels_p, out_p))
        window_channels, w_block = channels_p, (None, n_taps, channels_p, blocks.bo)
    kernel = functools.partial(
        _conv_kernel, taps=taps, bm=blocks.bm, bo=blocks.bo,
        precision=tpu_dot_precision(precision, x.dtype),
        upcast=x.dtype == jnp.float16, depthwise=depthwise)
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=0,
        grid=(groups, batch, rows_p // blocks.bm, out_p // blocks.bo),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY),
                  pl.BlockSpec(w_block, lambda g, n, i, j: (g, 0, 0, j))],
        out_specs=pl.BlockSpec((None, None, blocks.bm, blocks.bo),
                               lambda g, n, i, j: (g, n, i, j)),
        scratch_shapes=[pltpu.VMEM((phases, window_rows, window_channels), x.dtype),
                        pltpu.VMEM((blocks.bm, blocks.bo), jnp.float32),
                        pltpu.SemaphoreType.DMA(())],
    )
    last = "parallel" if depthwise else "arbitrary"
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((groups, batch, rows_p, out_p), out_dtype),
        grid_spec=grid_spec,
        compiler_params=tpu_compiler_params(("parallel", "parallel", "parallel", last)),
        interpret=interpret,
        name="pallas_conv_tpu",
    )(x, w)
    return crop_to_shape(out, (groups, batch, out_rows, out_channels))
