"""The TPU variant under TPU-semantics interpret mode (pltpu.InterpretParams)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import (
    assert_close_to_reference,
    random_array,
    reference_dot_general,
)

from pallas_kernels import dot_general
from pallas_kernels.dot.tpu_kernel import (
    TpuMatmulBlocks,
    batched_matmul_tpu,
    choose_tpu_blocks,
)
from pallas_kernels.toolkit import interpret_as, tpu_interpret_params

BATCHED = (((2,), (1,)), ((0,), (0,)))
HIGHEST = (jax.lax.Precision.HIGHEST, jax.lax.Precision.HIGHEST)


@pytest.mark.parametrize(
    "dtype, out_dtype",
    [(jnp.bfloat16, jnp.float32), (jnp.float32, jnp.float32),
     (jnp.float16, jnp.float16), (jnp.int8, jnp.int32)],
)
def test_several_k_steps_and_tiles(dtype, out_dtype):
    # Small forced blocks: a 2 x 3 x 3 grid of (M, N, K) blocks per batch, with
    # padding in every dimension.
    lhs = random_array(11, (2, 40, 300), dtype)
    rhs = random_array(12, (2, 300, 200), dtype)
    accumulator = jnp.int32 if dtype == jnp.int8 else jnp.float32
    out = jax.jit(lambda x, y: batched_matmul_tpu(
        x, y, out_dtype=jnp.dtype(out_dtype), accumulator_dtype=jnp.dtype(accumulator),
        precision=HIGHEST, interpret=tpu_interpret_params(),
        blocks=TpuMatmulBlocks(bm=32, bn=128, bk=128)))(lhs, rhs)
    assert out.dtype == out_dtype
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, BATCHED), out_dtype)


def test_public_api_runs_tpu_variant_when_asked():
    lhs = random_array(13, (3, 5, 19), jnp.bfloat16)
    rhs = random_array(14, (3, 19, 7), jnp.bfloat16)
    with interpret_as("tpu"):
        out = jax.jit(lambda x, y: dot_general(x, y, BATCHED))(lhs, rhs)
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, BATCHED), jnp.bfloat16)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32, jnp.int8])
@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (16, 4096, 4096), (8192, 14336, 4096),
                                     (1000, 1000, 1000)])
def test_block_choice_respects_tpu_rules(dtype, m, n, k):
    dtype = np.dtype(dtype)
    out_dtype = np.dtype(np.int32 if dtype == np.int8 else np.float32)
    blocks = choose_tpu_blocks(m, n, k, dtype, out_dtype)
    sublanes = {4: 8, 2: 16, 1: 32}[dtype.itemsize]
    assert blocks.bm % sublanes == 0
    assert blocks.bn % 128 == 0 and blocks.bk % 128 == 0
    assert blocks.vmem_bytes(dtype, out_dtype) <= 12 * 1024 * 1024
    # Small problems are not padded to huge blocks.
    assert blocks.bm < m + sublanes and blocks.bn < max(n, 1) + 128
