"""scatter lowers to a Mosaic (TPU) or Triton (CUDA) kernel, with no XLA scatter."""

import jax
import jax.numpy as jnp
import pytest
from kernel_testing import assert_lowers_to_pallas
from scatter_cases import ROWS

from pallas_kernels import scatter

REALISTIC = [
    ((32768, 768), 8192, jnp.bfloat16, "add"),
    ((32768, 768), 8192, jnp.float32, "add"),
    ((399, 128), 40960, jnp.float32, "add"),
    ((12123, 1024), 4096, jnp.float16, "max"),
    ((1000, 256), 512, jnp.int32, "add"),
    ((1000, 256), 512, jnp.float32, "replace"),
]


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
@pytest.mark.parametrize("shape, n, dtype, combiner", REALISTIC)
def test_lowers_to_pallas_kernel(platform, shape, n, dtype, combiner):
    operand = jax.ShapeDtypeStruct(shape, dtype)
    indices = jax.ShapeDtypeStruct((n, 1), jnp.int32)
    updates = jax.ShapeDtypeStruct((n, shape[1]), dtype)
    text = assert_lowers_to_pallas(
        lambda o, i, u: scatter(o, i, u, ROWS, combiner=combiner), operand, indices, updates,
        platform=platform, forbidden_ops=("stablehlo.scatter",))
    if platform == "cuda":
        assert "__gpu$xla.gpu.triton" in text and "num_warps" in text
