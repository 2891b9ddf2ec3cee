"""select_and_scatter_add (max-pool gradient) in interpret mode, both variants."""

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import assert_close_to_reference, random_array
from window_reference import reference_select_and_scatter_add

from pallas_kernels import explain, select_and_scatter_add
from pallas_kernels.toolkit import interpret_as

POOL = ((1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))


def _window_count(size, window, stride, low, high):
    return (size + low + high - window) // stride + 1


def _random_config(seed):
    """Rank 1-3; windows not dividing the input; padding wider than the window."""
    rng = random.Random(seed)
    rank = rng.randint(1, 3)
    shape, window, strides, padding = [], [], [], []
    for _ in range(rank):
        n, w = rng.randint(1, 7), rng.randint(1, 3)
        lo, hi = rng.randint(0, 4), rng.randint(0, 4)
        hi += max(w - (n + lo + hi), 0)
        shape.append(n), window.append(w), strides.append(rng.randint(1, 3))
        padding.append((lo, hi))
    return shape, window, strides, padding


def _ties(seed, shape, dtype):
    """Values in {0, 1, 2}: most windows hold several maxima."""
    values = jax.random.randint(jax.random.key(seed), shape, 0, 3)
    return values.astype(dtype)


def _run(source, operand, select, window, strides, padding):
    return jax.jit(lambda s, o: select_and_scatter_add(
        s, o, select, window, strides, padding))(source, operand)


def _check(seed, shape, window, strides, padding, select="ge", dtype=jnp.float32,
           source_dtype=jnp.float32):
    operand = _ties(seed, shape, dtype)
    out_shape = [_window_count(*a) for a in zip(shape, window, strides,
                                                *zip(*padding))]
    source = random_array(seed + 1, out_shape, source_dtype)
    assert explain("select_and_scatter_add", source, operand, select, window, strides,
                   padding).uses_kernel
    out = _run(source, operand, select, window, strides, padding)
    assert out.dtype == source_dtype and out.shape == tuple(shape)
    expected = reference_select_and_scatter_add(source, operand, select, window,
                                                strides, padding)
    assert_close_to_reference(out, expected, source_dtype)


@pytest.mark.parametrize("seed", [*range(3), *(pytest.param(s, marks=pytest.mark.slow)
                                               for s in range(3, 24))])
def test_random_configurations_with_ties(seed):
    shape, window, strides, padding = _random_config(seed)
    if all(w == 1 and s == 1 and p == (0, 0) for w, s, p in zip(window, strides, padding)):
        window[0] = 2
        padding[0] = (padding[0][0], padding[0][1] + 1)
    _check(seed, shape, window, strides, padding, select=("ge", "le")[seed % 2])


def test_max_pool_gradient_first_maximum_rule():
    _check(11, (2, 9, 8, 3), *POOL)


def test_padding_wider_than_window_drops_padding_only_windows():
    _check(12, (5, 4), (2, 1), (2, 1), ((4, 3), (0, 0)))


@pytest.mark.parametrize("dtype, source_dtype", [
    (jnp.bfloat16, jnp.bfloat16),
    pytest.param(jnp.int32, jnp.int32, marks=pytest.mark.slow),
    pytest.param(jnp.float16, jnp.float32, marks=pytest.mark.slow),
])
def test_dtypes(dtype, source_dtype):
    _check(13, (1, 5, 6, 2), *POOL, dtype=dtype, source_dtype=source_dtype)


def test_tpu_variant_under_tpu_semantics():
    operand = _ties(14, (1, 5, 6, 2), jnp.float32)
    source = random_array(15, (1, 3, 3, 2), jnp.float32)
    with interpret_as("tpu"):
        out = _run(source, operand, "ge", *POOL)
    expected = reference_select_and_scatter_add(source, operand, "ge", *POOL)
    assert_close_to_reference(out, expected, jnp.float32)


@pytest.mark.slow
def test_matches_jax_max_pool_vjp_without_ties():
    operand = random_array(16, (1, 8, 8, 2), jnp.float32)
    args = ((1, 3, 3, 1), (1, 2, 2, 1), "VALID")
    primal, vjp = jax.vjp(lambda v: jax.lax.reduce_window(v, -jnp.inf, jax.lax.max, *args),
                          operand)
    cotangent = random_array(17, primal.shape, jnp.float32)
    out = _run(cotangent, operand, "ge", *args)
    np.testing.assert_allclose(np.asarray(out), np.asarray(vjp(cotangent)[0]), rtol=1e-6)
