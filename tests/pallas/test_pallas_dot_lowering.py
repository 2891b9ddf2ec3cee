"""dot_general lowers to a Mosaic (TPU) or Triton (CUDA) kernel, with no XLA dot."""

import jax
import jax.numpy as jnp
import pytest
from kernel_testing import assert_lowers_to_pallas

from pallas_kernels import dot_general

MATMUL = (((1,), (0,)), ((), ()))
BATCHED = (((2,), (1,)), ((0,), (0,)))

REALISTIC = [
    ((1024, 1024), (1024, 1024), MATMUL, jnp.bfloat16, None),
    ((1024, 1024), (1024, 1024), MATMUL, jnp.float32, None),
    ((4096, 4096), (4096, 14336), MATMUL, jnp.bfloat16, jnp.float32),
    ((16, 4096), (4096, 4096), MATMUL, jnp.bfloat16, None),
    ((1000, 1000), (1000, 1000), MATMUL, jnp.float16, None),
    ((1024, 1024), (1024, 1024), MATMUL, jnp.int8, jnp.int32),
    ((8, 2048, 2048), (8, 2048, 2048), BATCHED, jnp.bfloat16, None),
    ((2048, 512), (1024, 512), (((1,), (1,)), ((), ())), jnp.bfloat16, None),
]


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
@pytest.mark.parametrize("lhs_shape, rhs_shape, numbers, dtype, preferred", REALISTIC)
def test_lowers_to_pallas_kernel(platform, lhs_shape, rhs_shape, numbers, dtype,
                                 preferred):
    lhs = jax.ShapeDtypeStruct(lhs_shape, dtype)
    rhs = jax.ShapeDtypeStruct(rhs_shape, dtype)

    def fn(x, y):
        return dot_general(x, y, numbers, preferred_element_type=preferred)

    text = assert_lowers_to_pallas(fn, lhs, rhs, platform=platform)
    if platform == "cuda":  # Triton, not Mosaic GPU, with our launch config
        assert "__gpu$xla.gpu.triton" in text and "num_warps" in text


def test_cuda_lowering_uses_tf32_only_below_highest():
    lhs = jax.ShapeDtypeStruct((256, 256), jnp.float32)
    for precision in (None, "highest"):
        assert_lowers_to_pallas(
            lambda x, y, p=precision: dot_general(x, y, MATMUL, precision=p),
            lhs, lhs, platform="cuda")
