"""Calls the scatter kernel does not cover fall back to lax.scatter*, with a reason."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scatter_cases import ROWS
from scatter_reference import reference_scatter

from pallas_kernels import explain, scatter
from pallas_kernels.scatter_kernel import canonical_combiner


def _inputs(dtype, n=6):
    rng = np.random.default_rng(21)
    operand = jnp.asarray(rng.integers(-5, 5, size=(9, 4)), dtype)
    indices = jnp.asarray(rng.integers(0, 9, size=(n, 1)), jnp.int32)
    updates = jnp.asarray(rng.integers(-5, 5, size=(n, 4)), dtype)
    return operand, indices, updates


@pytest.mark.parametrize("dtype, combiner, mode, reason", [
    (jnp.int16, "add", "drop", "dtype int16 is not supported"),
    (jnp.float64 if jax.config.jax_enable_x64 else jnp.uint8, "add", "drop", "is not supported"),
    (jnp.float32, "add", "one_hot", "mode"),
])
def test_unsupported_calls_fall_back_correctly(dtype, combiner, mode, reason):
    operand, indices, updates = _inputs(dtype)
    decision = explain("scatter", operand, indices, updates, ROWS, combiner, mode=mode)
    assert not decision.uses_kernel and reason in decision.reason
    if mode == "one_hot":
        return
    out = scatter(operand, indices, updates, ROWS, combiner=combiner, mode=mode)
    expected = reference_scatter(operand, indices, updates, ROWS, combiner)
    # the reference is exact int64: wrap it to the narrow type like XLA does
    np.testing.assert_array_equal(np.asarray(out), expected.astype(np.dtype(dtype)))


def test_empty_updates_fall_back_with_reason():
    operand, indices, updates = _inputs(jnp.float32, n=0)
    decision = explain("scatter", operand, indices, updates, ROWS)
    assert not decision.uses_kernel and "no updates" in decision.reason


def test_unknown_combiner_is_rejected():
    operand, indices, updates = _inputs(jnp.float32)
    decision = explain("scatter", operand, indices, updates, ROWS, lambda a, b: a - b)
    assert not decision.uses_kernel and "combiner" in decision.reason
    with pytest.raises(ValueError, match="combiner"):
        scatter(operand, indices, updates, ROWS, combiner=lambda a, b: a - b)


def test_invalid_dimension_numbers_reported():
    operand, indices, updates = _inputs(jnp.float32)
    bad = jax.lax.ScatterDimensionNumbers((1,), (0,), (0, 1))
    decision = explain("scatter", operand, indices, updates, bad)
    assert not decision.uses_kernel and decision.reason.startswith("invalid call")


def test_combiner_names_and_callables():
    assert canonical_combiner(jax.lax.add) == "add"
    assert canonical_combiner(jnp.maximum) == "max"
    assert canonical_combiner("multiply") == "mul"
    assert canonical_combiner(None) == "replace"


def test_explain_reports_the_canonical_table():
    operand = jax.ShapeDtypeStruct((4, 10, 6), jnp.bfloat16)
    indices = jax.ShapeDtypeStruct((7, 1), jnp.int32)
    updates = jax.ShapeDtypeStruct((4, 7, 6), jnp.bfloat16)
    numbers = jax.lax.ScatterDimensionNumbers((0, 2), (1,), (1,))
    plan = explain("scatter", operand, indices, updates, numbers, "max").plan
    assert (plan.rows, plan.columns, plan.row_updates) == (10, 24, 7)
    assert plan.operand_permutation == (1, 0, 2) and plan.combiner == "max"
