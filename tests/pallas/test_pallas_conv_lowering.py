"""conv_general_dilated lowers to Mosaic (TPU) / Triton (CUDA) kernels, no XLA conv."""

import jax
import jax.numpy as jnp
import pytest
from kernel_testing import assert_lowers_to_pallas

from pallas_kernels import conv_general_dilated, explain

NHWC = ("NHWC", "HWIO", "NHWC")
NO_XLA_CONV = ("stablehlo.convolution",)

# (name, x shape, w shape, kwargs, dtype, expected kernel)
REALISTIC = [
    ("resnet_3x3_64", (32, 56, 56, 64), (3, 3, 64, 64),
     dict(padding=((1, 1), (1, 1))), jnp.bfloat16, "implicit_gemm"),
    ("resnet_3x3s2_128_f32", (32, 56, 56, 128), (3, 3, 128, 128),
     dict(window_strides=(2, 2), padding=((1, 1), (1, 1))), jnp.float32, "implicit_gemm"),
    ("resnet_stem", (32, 224, 224, 3), (7, 7, 3, 64),
     dict(window_strides=(2, 2), padding=((3, 3), (3, 3))), jnp.bfloat16, "implicit_gemm"),
    ("resnet_1x1_256_64", (32, 56, 56, 256), (1, 1, 256, 64), dict(padding="VALID"),
     jnp.bfloat16, "matmul"),
    ("mobilenet_dw", (32, 112, 112, 32), (3, 3, 1, 32),
     dict(padding="SAME", feature_group_count=32), jnp.bfloat16, "depthwise"),
    ("grouped_dilated", (8, 28, 28, 256), (3, 3, 8, 256),
     dict(padding="SAME", feature_group_count=32, rhs_dilation=(2, 2)), jnp.float16,
     "implicit_gemm"),
    ("transposed", (8, 28, 28, 128), (3, 3, 128, 64),
     dict(padding=((1, 2), (1, 2)), lhs_dilation=(2, 2)), jnp.bfloat16, "implicit_gemm"),
]


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
@pytest.mark.parametrize("name, x_shape, w_shape, kwargs, dtype, kind", REALISTIC,
                         ids=[case[0] for case in REALISTIC])
def test_lowers_to_pallas_kernel(platform, name, x_shape, w_shape, kwargs, dtype, kind):
    x = jax.ShapeDtypeStruct(x_shape, dtype)
    w = jax.ShapeDtypeStruct(w_shape, dtype)
    kwargs = {"window_strides": (1, 1), "dimension_numbers": NHWC, **kwargs}
    decision = explain("conv_general_dilated", x, w, **kwargs)
    assert decision.uses_kernel and decision.plan.kind == kind

    def fn(a, b):
        return conv_general_dilated(a, b, **kwargs)

    text = assert_lowers_to_pallas(fn, x, w, platform=platform,
                                   forbidden_ops=NO_XLA_CONV)
    if platform == "cuda":  # Triton, not Mosaic GPU, with our launch config
        assert "__gpu$xla.gpu.triton" in text and "num_warps" in text
