"""dot_general through the public API on CPU (GPU variant, interpret mode)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import (
    assert_close_to_reference,
    random_array,
    reference_dot_general,
)

from pallas_kernels import dot_general, explain

MATMUL = (((1,), (0,)), ((), ()))
BATCHED = (((2,), (1,)), ((0,), (0,)))

# (lhs shape, rhs shape, dimension_numbers)
CASES = [
    ((37, 53), (53, 29), MATMUL),                        # odd sizes
    ((1, 1), (1, 1), MATMUL),                             # size 1 everywhere
    ((1, 130), (130, 1), MATMUL),                         # vector . vector
    ((3, 17, 40), (3, 40, 9), BATCHED),                   # batch dim
    ((40, 17), (40, 9), (((0,), (0,)), ((), ()))),        # transposed lhs
    ((17, 40), (9, 40), (((1,), (1,)), ((), ()))),        # transposed rhs (A B^T)
    ((5, 6, 7), (7, 6, 4), (((1, 2), (1, 0)), ((), ()))), # two contracting dims
    ((2, 5, 3, 8), (3, 8, 2, 6), (((3,), (1,)), ((0, 2), (2, 0)))),  # batch reorder
    ((4, 9), (2, 3), (((), ()), ((), ()))),               # outer product, K = 1
    ((2, 3, 5), (3, 5, 2), (((2,), (1,)), ((0, 1), (2, 0)))),  # two batch dims
]


def _call(lhs, rhs, numbers, **kwargs):
    return jax.jit(lambda x, y: dot_general(x, y, numbers, **kwargs))(lhs, rhs)


@pytest.mark.parametrize("lhs_shape, rhs_shape, numbers", CASES)
def test_dimension_numbers_match_reference(lhs_shape, rhs_shape, numbers):
    lhs = random_array(1, lhs_shape, jnp.float32)
    rhs = random_array(2, rhs_shape, jnp.float32)
    assert explain("dot_general", lhs, rhs, numbers).uses_kernel
    out = _call(lhs, rhs, numbers)
    assert out.dtype == jnp.float32
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, numbers), jnp.float32)


@pytest.mark.parametrize(
    "dtype, preferred",
    [
        (jnp.bfloat16, None),
        (jnp.bfloat16, jnp.float32),
        (jnp.float16, None),
        (jnp.float16, jnp.float32),
        (jnp.float32, None),
        (jnp.float32, jnp.float32),
        (jnp.int8, jnp.int32),
    ],
)
def test_every_supported_dtype(dtype, preferred):
    lhs = random_array(3, (2, 33, 70), dtype)
    rhs = random_array(4, (2, 70, 45), dtype)
    out = _call(lhs, rhs, BATCHED, preferred_element_type=preferred)
    expected_dtype = jnp.dtype(preferred or dtype)
    assert out.dtype == expected_dtype
    assert explain("dot_general", lhs, rhs, BATCHED,
                   preferred_element_type=preferred).uses_kernel
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, BATCHED),
                              expected_dtype)


def test_int8_large_values_accumulate_exactly():
    lhs = jnp.full((16, 300), 127, jnp.int8)
    rhs = jnp.full((300, 16), -128, jnp.int8)
    out = _call(lhs, rhs, MATMUL, preferred_element_type=jnp.int32)
    np.testing.assert_array_equal(np.asarray(out), np.full((16, 16), 127 * -128 * 300))


@pytest.mark.parametrize("precision", [None, "highest", jax.lax.Precision.HIGH,
                                       (jax.lax.Precision.HIGHEST,) * 2])
def test_precision_values_are_accepted(precision):
    lhs = random_array(5, (20, 24), jnp.float32)
    rhs = random_array(6, (24, 12), jnp.float32)
    out = _call(lhs, rhs, MATMUL, precision=precision)
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, MATMUL), jnp.float32)


def test_multiple_k_steps_and_tiles_with_padding():
    # Bigger than one block in M, N and K on the GPU-variant defaults (f32: 128x128x32).
    lhs = random_array(7, (150, 70), jnp.float32)
    rhs = random_array(8, (70, 260), jnp.float32)
    out = _call(lhs, rhs, MATMUL)
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, MATMUL), jnp.float32)


def test_works_under_vmap_and_grad():
    lhs = random_array(9, (3, 8, 16), jnp.float32)
    rhs = random_array(10, (16, 4), jnp.float32)
    out = jax.jit(jax.vmap(lambda x: dot_general(x, rhs, MATMUL)))(lhs)
    expected = reference_dot_general(lhs, rhs, (((2,), (0,)), ((), ())))
    assert_close_to_reference(out, expected, jnp.float32)
    grad = jax.grad(lambda x: dot_general(x, rhs, MATMUL).sum())(lhs[0])
    expected_grad = np.broadcast_to(np.asarray(rhs, np.float64).sum(1), (8, 16))
    assert_close_to_reference(grad, expected_grad, jnp.float32)


def test_gpu_variant_grouped_tile_order_covers_every_tile():
    # 13 x 3 output tiles (a partial GROUP_M group) and 5 K steps; unwritten
    # tiles would stay NaN (poisoned) in interpret mode.
    from pallas_kernels.dot.gpu_kernel import GpuMatmulBlocks, batched_matmul_gpu

    lhs = random_array(15, (2, 200, 70), jnp.float32)
    rhs = random_array(16, (2, 70, 40), jnp.float32)
    blocks = GpuMatmulBlocks(bm=16, bn=16, bk=16, num_warps=4, num_stages=2)
    out = jax.jit(lambda x, y: batched_matmul_gpu(
        x, y, out_dtype=jnp.dtype(jnp.float32), accumulator_dtype=jnp.dtype(jnp.float32),
        precision=(jax.lax.Precision.HIGHEST,) * 2, interpret=True, blocks=blocks))(lhs, rhs)
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, BATCHED), jnp.float32)
