"""Calls the kernels do not cover fall back to XLA, with a reason."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import assert_close_to_reference, random_array
from window_reference import reference_reduce_window, reference_select_and_scatter_add

from pallas_kernels import explain, reduce_window, select_and_scatter_add

POOL = ((1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))


@pytest.mark.parametrize("computation, name", [
    (jax.lax.add, "add"), (jnp.add, "add"), (jax.lax.max, "max"), (jnp.maximum, "max"),
    (jax.lax.min, "min"), (jax.lax.mul, "mul"), (jnp.multiply, "mul"), ("MAX", "max"),
])
def test_callables_are_recognised(computation, name):
    x = jax.ShapeDtypeStruct((2, 8, 8, 4), jnp.float32)
    decision = explain("reduce_window", x, 0.0, computation, *POOL)
    assert decision.uses_kernel and decision.plan.computation == name


@pytest.mark.parametrize("dtype, computation, reason", [
    (jnp.float32, lambda a, b: a - b, "is not one of add, max, min, mul"),
    (jnp.uint32, "max", "dtype uint32 is not supported"),
    (jnp.complex64, "add", "dtype complex64 is not supported"),
])
def test_unsupported_calls_fall_back_correctly(dtype, computation, reason):
    x = random_array(40, (2, 6, 5, 3), dtype)
    init = 0
    assert reason in explain("reduce_window", x, init, computation, *POOL).reason
    out = jax.jit(lambda v: reduce_window(v, init, computation, *POOL))(x)
    if computation == "max":
        expected = reference_reduce_window(x, init, "max", *POOL)
        np.testing.assert_array_equal(np.asarray(out, np.int64), expected)
    elif computation == "add":
        expected = reference_reduce_window(np.asarray(x).real, 0, "add", *POOL)
        assert_close_to_reference(np.asarray(out).real, expected, jnp.float32)
    else:
        assert out.shape == (2, 3, 3, 3)


def test_several_operands_fall_back():
    x = random_array(41, (6, 6), jnp.float32)
    decision = explain("reduce_window", (x, x), (0.0, 0.0), "add", (2, 2))
    assert "several operands" in decision.reason


def test_traced_init_and_huge_window_fall_back():
    x = random_array(42, (3, 40, 40), jnp.float32)
    assert "taps" in explain("reduce_window", x, 0.0, "add", (1, 40, 40)).reason
    seen = []

    def fn(v, init):
        seen.append(explain("reduce_window", v, init, "add", (1, 2, 2)).reason)
        return reduce_window(v, init, "add", (1, 2, 2))

    out = jax.jit(fn)(x, jnp.float32(1.5))
    assert "not a concrete scalar" in seen[0]
    expected = reference_reduce_window(x, 1.5, "add", (1, 2, 2), (1, 1, 1), [(0, 0)] * 3)
    assert_close_to_reference(out, expected, jnp.float32)


def test_trivial_and_empty_windows_fall_back():
    x = jax.ShapeDtypeStruct((4, 5), jnp.float32)
    assert "trivial window" in explain("reduce_window", x, 0.0, "add", (1, 1)).reason
    empty = jax.ShapeDtypeStruct((0, 5), jnp.float32)
    assert "empty" in explain("reduce_window", empty, 0.0, "add", (1, 2)).reason


def test_select_and_scatter_fallbacks():
    operand = random_array(43, (1, 6, 6, 2), jnp.float32)
    source = random_array(44, (1, 3, 3, 2), jnp.float32)
    args = ((1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4)
    assert "select" in explain("select_and_scatter_add", source, operand, "gt", *args).reason
    negative = ((0, 0), (-1, 0), (0, 0), (0, 0))
    assert "negative padding" in explain("select_and_scatter_add",
                                         random_array(45, (1, 2, 3, 2), jnp.float32),
                                         operand, "ge", args[0], args[1], negative).reason
    f64_source = jax.ShapeDtypeStruct((1, 3, 3, 2), np.float64)
    assert "float64" in explain("select_and_scatter_add", f64_source, operand, "ge",
                                *args).reason
    # A fallback still computes the right thing (through XLA).
    trivial = ((1,) * 4, (1,) * 4, ((0, 0),) * 4)
    assert "trivial window" in explain("select_and_scatter_add", operand, operand, "ge",
                                       *trivial).reason
    out = select_and_scatter_add(operand, operand, "ge", *trivial)
    expected = reference_select_and_scatter_add(operand, operand, "ge", *trivial)
    assert_close_to_reference(out, expected, jnp.float32)
