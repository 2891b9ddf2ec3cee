"""reduce_window through the public API on CPU (GPU variant, interpret mode)."""

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import assert_close_to_reference, random_array
from window_reference import reference_reduce_window, split_infinities

from pallas_kernels import explain, reduce_window

INITS = {"add": 0, "max": -np.inf, "min": np.inf, "mul": 1}


def _init(computation, dtype):
    value = INITS[computation]
    if jnp.issubdtype(dtype, jnp.integer) and computation in ("max", "min"):
        info = jnp.iinfo(dtype)
        value = int(info.min if computation == "max" else info.max)
    return value


def _random_config(seed):
    """Rank 1-4, windows up to 4, strides up to 3, padding up to 5 (wider than
    the window too), base and window dilations, sizes windows do not divide."""
    rng = random.Random(seed)
    rank = rng.randint(1, 4)
    shape, window, strides, padding, base, dilation = [], [], [], [], [], []
    for _ in range(rank):
        w = rng.randint(1, 4)
        shape.append(rng.randint(1, 7))
        window.append(w)
        strides.append(rng.randint(1, 3))
        padding.append((rng.randint(0, 5), rng.randint(-1, 5)))
        base.append(rng.choice([1, 1, 2]))
        dilation.append(rng.choice([1, 1, 2]))
    for i, ((lo, hi), n, b, w, r) in enumerate(zip(padding, shape, base, window, dilation)):
        short = (w - 1) * r + 1 - ((n - 1) * b + 1 + lo + hi)
        padding[i] = (lo, hi + max(short, 0))  # at least one window
    return shape, window, strides, padding, base, dilation


CONFIG_SEEDS = list(range(4))
SLOW_CONFIG_SEEDS = list(range(4, 30))


def _run(x, init, computation, *args):
    fn = jax.jit(lambda v: reduce_window(v, init, computation, *args))
    return fn(x)


@pytest.mark.parametrize("seed", [*CONFIG_SEEDS, *(pytest.param(s, marks=pytest.mark.slow)
                                                 for s in SLOW_CONFIG_SEEDS)])
def test_random_configurations_match_reference(seed):
    shape, window, strides, padding, base, dilation = _random_config(seed)
    computation = ["add", "max", "min", "mul"][seed % 4]
    dtype = jnp.float32
    x = random_array(100 + seed, shape, dtype)
    if computation == "mul":
        x = 1 + 0.1 * x  # keep products of many taps well scaled
    init = _init(computation, dtype)
    args = (window, strides, padding, base, dilation)
    decision = explain("reduce_window", x, init, computation, *args)
    expected = reference_reduce_window(x, init, computation, *args)
    if not decision.uses_kernel:  # only the trivial-window configuration
        assert "trivial window" in decision.reason
    out = _run(x, init, computation, *args)
    assert_close_to_reference(*split_infinities(out, expected), dtype)


@pytest.mark.parametrize("computation, dtype", [
    ("add", jnp.bfloat16), ("max", jnp.float16), ("mul", jnp.int32), ("add", jnp.int8),
    *(pytest.param(c, d, marks=pytest.mark.slow) for c, d in [
        ("min", jnp.bfloat16), ("max", jnp.int32), ("mul", jnp.float32), ("min", jnp.int16),
        ("max", jnp.uint8), ("mul", jnp.bfloat16)]),
])
def test_dtypes_and_computations(computation, dtype):
    # NHWC 3x3 stride-2 pooling with padding, the ResNet stem shape in small.
    args = ((1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    x = random_array(7, (2, 9, 8, 3), dtype)
    if computation == "mul" and not jnp.issubdtype(dtype, jnp.integer):
        x = (1 + 0.1 * x.astype(jnp.float32)).astype(dtype)
    init = _init(computation, dtype)
    out = _run(x, init, computation, *args)
    assert out.dtype == dtype and explain("reduce_window", x, init, computation, *args).uses_kernel
    expected = reference_reduce_window(x, init, computation, *args)
    assert_close_to_reference(out, expected, dtype)


@pytest.mark.parametrize("computation, name", [(jax.lax.max, "max"), (jnp.minimum, "min")])
def test_callable_computations_are_recognised(computation, name):
    x = random_array(8, (2, 6, 5), jnp.float32)
    init = INITS[name]
    args = ((1, 2, 2), (1, 1, 2), "SAME")
    assert explain("reduce_window", x, init, computation, *args).plan.computation == name
    pads = jax.lax.padtype_to_pads(x.shape, (1, 2, 2), (1, 1, 2), "SAME")
    expected = reference_reduce_window(x, init, name, (1, 2, 2), (1, 1, 2), pads)
    assert_close_to_reference(_run(x, init, computation, *args), expected, jnp.float32)


def test_non_identity_init_and_global_pool():
    # Global pooling with an init that is not the identity: counted once per window.
    x = random_array(9, (2, 7, 7, 16), jnp.float32)
    args = ((1, 7, 7, 1), (1, 1, 1, 1), "VALID")
    out = _run(x, 2.5, "add", *args)
    expected = reference_reduce_window(x, 2.5, "add", (1, 7, 7, 1), (1,) * 4, [(0, 0)] * 4)
    assert out.shape == (2, 1, 1, 16)
    assert_close_to_reference(out, expected, jnp.float32)


def test_gradient_matches_max_pool_gradient():
    x = random_array(10, (1, 6, 6, 2), jnp.float32)
    args = ((1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    grad = jax.grad(lambda v: reduce_window(v, -jnp.inf, "max", *args).sum())(x)
    expected = jax.grad(lambda v: jax.lax.reduce_window(
        v, -jnp.inf, jax.lax.max, *args).sum())(x)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(expected))
