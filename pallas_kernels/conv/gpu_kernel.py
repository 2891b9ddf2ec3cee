"""Implicit-GEMM and depthwise convolution for NVIDIA GPUs (Pallas Triton).

Operands are in the flat phase layout of :mod:`pallas_kernels.toolkit.windows`:
input ``[G, N, P, L, C]``, filter ``[G, T, C, O]`` (depthwise: ``[1, T, 1, C]``),
output ``[G, N, R, O]`` flat output rows.  Grid ``(G, N, R/bm, O/bo)``: each
program owns a ``bm x bo`` output tile and runs one loop over (filter tap,
``bk`` channel block): each step reads the shifted ``bm``-row slice of the
input (phase and offset computed from the tap number) and issues one
tensor-core dot into an f32 accumulator in registers; Triton pipelines the
whole loop through shared memory.
Neighbouring programs along the ``O`` axis read the same input rows, which stay
in L2.  The depthwise kernel multiplies and adds on the CUDA cores instead.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

from pallas_kernels.dot.gpu_kernel import gpu_dot_precision
from pallas_kernels.dot.plan import PrecisionPair
from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape
from pallas_kernels.toolkit.platforms import triton_compiler_params
from pallas_kernels.toolkit.tiling import (
    GPU_MIN_DOT_DIM,
    GPU_SHARED_MEMORY_BYTES,
    fit_power_of_two_block,
    padded_size,
)
from pallas_kernels.toolkit.windows import FlatWindows


@dataclasses.dataclass(frozen=True)
class GpuConvBlocks:
    bm: int
    bo: int
    bk: int
    num_warps: int
    num_stages: int


def choose_gpu_conv_blocks(rows: int, in_channels: int, out_channels: int,
                           in_dtype: np.dtype, depthwise: bool) -> GpuConvBlocks:
    """Power-of-two tiles (>= 16); operand tiles fit in shared memory."""
    itemsize = np.dtype(in_dtype).itemsize
    if depthwise:
        bo = fit_power_of_two_block(out_channels, 128, GPU_MIN_DOT_DIM)
        return GpuConvBlocks(fit_power_of_two_block(rows, 64, GPU_MIN_DOT_DIM), bo,
                             bk=1, num_warps=4, num_stages=1)
    bm = fit_power_of_two_block(rows, 128, GPU_MIN_DOT_DIM)
    bo = fit_power_of_two_block(out_channels, 128, GPU_MIN_DOT_DIM)
    bk = fit_power_of_two_block(in_channels, 64 if itemsize <= 2 else 32, GPU_MIN_DOT_DIM)
    num_stages = 3
    while num_stages > 1 and num_stages * (bm + bo) * bk * itemsize > GPU_SHARED_MEMORY_BYTES:
        num_stages -= 1
    return GpuConvBlocks(bm, bo, bk, num_warps=8 if bm * bo >= 128 * 128 else 4,
                         num_stages=num_stages)


def _conv_kernel(x_ref, w_ref, out_ref, *, windows, bm, bk, precision):
    """One loop over (tap, channel block): a single pipelined implicit-GEMM loop."""
    m0 = pl.multiple_of(pl.program_id(2) * bm, bm)
    k_steps = x_ref.shape[-1] // bk

    def step(s, acc):
        tap = s if k_steps == 1 else jax.lax.div(s, k_steps)
        phase, offset = windows.tap_location(tap)
        c0 = 0 if k_steps == 1 else pl.multiple_of(jax.lax.rem(s, k_steps) * bk, bk)
        lhs = x_ref[phase, pl.ds(m0 + offset, bm), pl.ds(c0, bk)]
        rhs = w_ref[tap, pl.ds(c0, bk), :]
        return acc + jnp.dot(lhs, rhs, precision=precision,
                             preferred_element_type=jnp.float32)

    acc = jnp.zeros(out_ref.shape, jnp.float32)
    acc = jax.lax.fori_loop(0, len(windows.taps) * k_steps, step, acc)
    out_ref[...] = acc.astype(out_ref.dtype)


def _depthwise_kernel(x_ref, w_ref, out_ref, *, windows, bm):
    m0 = pl.multiple_of(pl.program_id(2) * bm, bm)

    def step(tap, acc):
        phase, offset = windows.tap_location(tap)
        rows = x_ref[phase, pl.ds(m0 + offset, bm), :].astype(jnp.float32)
        return acc + rows * w_ref[tap, :, :].astype(jnp.float32)

    acc = jnp.zeros(out_ref.shape, jnp.float32)
    acc = jax.lax.fori_loop(0, len(windows.taps), step, acc)
    out_ref[...] = acc.astype(out_ref.dtype)


def conv_gpu(
    x: jax.Array,
    w: jax.Array,
    *,
    windows: FlatWindows,
    out_dtype: np.dtype,
    precision: PrecisionPair,
    depthwise: bool,
    interpret: Any = False,
    blocks: GpuConvBlocks | None = None,
) -> jax.Array:
    """Flat-phase convolution ``[G, N, P, L, C] * [G, T, C, O] -> [G, N, out_rows, O]``."""
    groups, batch, phases, _, channels = x.shape
    out_rows, max_offset = windows.out_rows, windows.max_offset
    n_taps, out_channels = w.shape[1], w.shape[-1]
    if blocks is None:
        blocks = choose_gpu_conv_blocks(out_rows, channels, out_channels, x.dtype, depthwise)
    rows_p = padded_size(out_rows, blocks.bm)
    out_p = padded_size(out_channels, blocks.bo)
    length = rows_p + max_offset
    if depthwise:
        x = pad_to_shape(x, (groups, batch, phases, length, out_p))
        w = pad_to_shape(w, (groups, n_taps, 1, out_p))
        kernel = functools.partial(_depthwise_kernel, windows=windows, bm=blocks.bm)
        x_spec = pl.BlockSpec((None, None, phases, length, blocks.bo),
                              lambda g, n, i, j: (g, n, 0, 0, j))
        w_spec = pl.BlockSpec((None, n_taps, 1, blocks.bo), lambda g, n, i, j: (g, 0, 0, j))
    else:
        channels_p = padded_size(channels, blocks.bk)
        x = pad_to_shape(x, (groups, batch, phases, length, channels_p))
        w = pad_to_shape(w, (groups, n_taps, channels_p, out_p))
        kernel = functools.partial(_conv_kernel, windows=windows, bm=blocks.bm, bk=blocks.bk,
                                   precision=gpu_dot_precision(precision, x.dtype))
        x_spec = pl.BlockSpec((None, None, phases, length, channels_p),
                              lambda g, n, i, j: (g, n, 0, 0, 0))
        w_spec = pl.BlockSpec((None, n_taps, channels_p, blocks.bo),
                              lambda g, n, i, j: (g, 0, 0, j))
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((groups, batch, rows_p, out_p), out_dtype),
        grid=(groups, batch, rows_p // blocks.bm, out_p // blocks.bo),
        in_specs=[x_spec, w_spec],
        out_specs=pl.BlockSpec((None, None, blocks.bm, blocks.bo),
                               lambda g, n, i, j: (g, n, i, j)),
        compiler_params=triton_compiler_params(blocks.num_warps, blocks.num_stages),
        interpret=interpret,
        name="pallas_conv_gpu",
    )(x, w)
    return crop_to_shape(out, (groups, batch, out_rows, out_channels))
