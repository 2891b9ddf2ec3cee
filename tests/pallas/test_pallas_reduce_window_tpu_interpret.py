"""The TPU variant of reduce_window under TPU-semantics interpret mode."""

import jax
import jax.numpy as jnp
import numpy as np
from kernel_testing import assert_close_to_reference, random_array
from window_reference import reference_reduce_window, split_infinities

from pallas_kernels import reduce_window
from pallas_kernels.pooling.geometry import make_geometry
from pallas_kernels.pooling.tpu_kernel import (
    LANE_BLOCK,
    choose_tpu_blocks,
    vmem_bytes,
)
from pallas_kernels.toolkit import interpret_as


def _run_tpu(x, init, computation, *args):
    with interpret_as("tpu"):
        return jax.jit(lambda v: reduce_window(v, init, computation, *args))(x)


def test_pool_with_dilations_and_padding():
    x = random_array(30, (3, 8, 9, 5), jnp.bfloat16)
    args = ((1, 3, 2, 1), (1, 2, 3, 1), ((0, 0), (2, 1), (4, 0), (0, 0)), (1, 2, 1, 1),
            (1, 1, 2, 1))
    out = _run_tpu(x, -jnp.inf, "max", *args)
    expected = reference_reduce_window(x, -np.inf, "max", *args)
    assert out.dtype == jnp.bfloat16
    assert_close_to_reference(*split_infinities(out, expected), jnp.bfloat16)


def test_lane_blocks_and_batch_groups():
    # Stride 1 and 1024 lanes: two lane blocks of 512 per batch group.
    x = random_array(31, (4, 5, 1024), jnp.int32)
    args = ((1, 3, 1), (1, 1, 1), ((0, 0), (1, 1), (0, 0)))
    out = _run_tpu(x, 0, "add", *args)
    assert_close_to_reference(out, reference_reduce_window(x, 0, "add", *args), jnp.int32)


def test_block_choice_fits_vmem_for_benchmark_shapes():
    geometry = make_geometry((128, 112, 112, 64), (1, 3, 3, 1), (1, 2, 2, 1),
                             ((0, 0), (1, 1), (1, 1), (0, 0)), (1,) * 4, (1,) * 4)
    f32 = np.dtype(np.float32)
    blocks = choose_tpu_blocks(geometry, f32, f32, f32)
    assert blocks is not None and blocks.bc == 64
    assert vmem_bytes(geometry, blocks, f32, f32, f32) <= 32 * 1024 * 1024
    global_pool = make_geometry((128, 7, 7, 2048), (1, 7, 7, 1), (1,) * 4, ((0, 0),) * 4,
                                (1,) * 4, (1,) * 4)
    assert choose_tpu_blocks(global_pool, f32, f32, f32).bc == LANE_BLOCK
