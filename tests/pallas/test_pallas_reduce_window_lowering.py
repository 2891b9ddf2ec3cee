"""reduce_window and select_and_scatter_add lower to Mosaic (TPU) / Triton (CUDA)."""

import jax
import jax.numpy as jnp
import pytest
from kernel_testing import assert_lowers_to_pallas

from pallas_kernels import reduce_window, select_and_scatter_add

SAME_3x3_S2 = ((1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
CASES = [
    ((32, 112, 112, 64), jnp.float32, "max", -jnp.inf, SAME_3x3_S2),
    ((32, 112, 112, 64), jnp.bfloat16, "add", 0.0, SAME_3x3_S2),
    ((8, 7, 7, 2048), jnp.float32, "add", 0.0, ((1, 7, 7, 1), (1,) * 4, "VALID")),
    ((8, 20, 20, 256), jnp.bfloat16, "max", -jnp.inf, ((1, 5, 5, 1), (1,) * 4, "SAME")),
    ((4, 33, 17), jnp.int32, "mul", 1, ((2, 3, 1), (1, 2, 1), "VALID", (1, 2, 1), (1, 1, 1))),
]
FORBIDDEN = ("stablehlo.reduce_window", "stablehlo.select_and_scatter")


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
@pytest.mark.parametrize("shape, dtype, computation, init, args", CASES)
def test_reduce_window_lowers_to_pallas(platform, shape, dtype, computation, init, args):
    x = jax.ShapeDtypeStruct(shape, dtype)
    text = assert_lowers_to_pallas(lambda v: reduce_window(v, init, computation, *args), x,
                                   platform=platform, forbidden_ops=FORBIDDEN)
    if platform == "cuda":
        assert "__gpu$xla.gpu.triton" in text


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
def test_max_pool_gradient_lowers_to_pallas(platform):
    operand = jax.ShapeDtypeStruct((32, 112, 112, 64), jnp.bfloat16)
    source = jax.ShapeDtypeStruct((32, 56, 56, 64), jnp.bfloat16)
    text = assert_lowers_to_pallas(
        lambda s, o: select_and_scatter_add(s, o, "ge", *SAME_3x3_S2), source, operand,
        platform=platform, forbidden_ops=FORBIDDEN)
    markers = "tpu_custom_call" if platform == "tpu" else "__gpu$xla.gpu.triton"
    assert text.count(markers) >= 2  # select pass and gather pass
