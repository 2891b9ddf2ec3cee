"""The TPU variant under TPU-semantics interpret mode (pltpu.InterpretParams)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conv_reference import numpy_random, reference_conv
from kernel_testing import assert_close_to_reference

from pallas_kernels import conv_general_dilated
from pallas_kernels.conv import api as conv_api
from pallas_kernels.conv.tpu_kernel import TpuConvBlocks, choose_tpu_conv_blocks, conv_tpu
from pallas_kernels.toolkit import interpret_as

NHWC = ("NHWC", "HWIO", "NHWC")


@pytest.mark.parametrize("x_shape, w_shape, kwargs, dtype", [
    ((1, 9, 10, 6), (3, 3, 6, 130), dict(window_strides=(2, 1), padding="SAME"),
     jnp.float32),
    ((1, 7, 6, 4), (2, 3, 2, 6), dict(window_strides=(1, 1), padding="VALID",
                                      feature_group_count=2), jnp.bfloat16),
    ((1, 9, 7, 130), (3, 3, 1, 130), dict(window_strides=(1, 1), padding="SAME",
                                          feature_group_count=130), jnp.bfloat16),
])
def test_several_row_and_channel_blocks(x_shape, w_shape, kwargs, dtype, monkeypatch):
    # Forced small blocks: several output-row blocks (window DMA per block, halo
    # overlap) and two output-channel blocks (window reused across them).
    kwargs = {"dimension_numbers": NHWC, **kwargs}
    x, w = numpy_random(1, x_shape, dtype), numpy_random(2, w_shape, dtype)
    monkeypatch.setattr(conv_api, "conv_tpu", functools.partial(
        conv_tpu, blocks=TpuConvBlocks(bm=16, bo=128)))
    with interpret_as("tpu"):
        out = jax.jit(lambda a, b: conv_general_dilated(a, b, **kwargs))(x, w)
    assert_close_to_reference(out, reference_conv(x, w, **kwargs), dtype)


def test_public_api_runs_tpu_variant_with_lhs_dilation_and_f16():
    x = numpy_random(3, (1, 4, 5, 4), jnp.float16)
    w = numpy_random(4, (3, 3, 4, 5), jnp.float16)
    kwargs = dict(window_strides=(1, 1), padding=((1, 2), (2, 1)), lhs_dilation=(2, 2),
                  rhs_dilation=(1, 2), dimension_numbers=NHWC)
    with interpret_as("tpu"):
        out = jax.jit(lambda a, b: conv_general_dilated(a, b, **kwargs))(x, w)
    assert out.dtype == jnp.float16
    assert_close_to_reference(out, reference_conv(x, w, **kwargs), jnp.float16)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32])
@pytest.mark.parametrize("rows, phases, offset, channels, out_channels, taps", [
    (56 * 58, 1, 2 * 58 + 2, 64, 64, 9), (112 * 115, 4, 3 * 115 + 3, 3, 64, 49),
    (7 * 9, 1, 2 * 9 + 2, 512, 512, 9), (28 * 30, 1, 4 * 30 + 4, 8, 256, 9),
])
def test_block_choice_respects_tpu_rules(dtype, rows, phases, offset, channels,
                                         out_channels, taps):
    dtype = np.dtype(dtype)
    blocks = choose_tpu_conv_blocks(rows, phases, offset, channels, out_channels, taps,
                                    dtype, dtype, depthwise=False)
    assert blocks is not None
    assert blocks.bm % {4: 8, 2: 16}[dtype.itemsize] == 0 and blocks.bo % 128 == 0
    assert blocks.vmem_bytes(phases, offset, channels, taps, dtype, dtype,
                             False) <= 12 * 1024 * 1024
    assert blocks.bm < rows + 16  # small problems are not padded to huge blocks
