"""scatter through the public API on CPU (GPU variant, interpret mode)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import assert_close_to_reference
from scatter_cases import ROWS, row_case, values
from scatter_reference import reference_scatter

from pallas_kernels import explain, scatter

Dn = jax.lax.ScatterDimensionNumbers


def _run(operand, indices, updates, numbers, combiner, **kwargs):
    assert explain("scatter", operand, indices, updates, numbers, combiner, **kwargs).uses_kernel
    fn = jax.jit(lambda o, i, u: scatter(o, i, u, numbers, combiner=combiner, **kwargs))
    return fn(operand, indices, updates)


def _check(operand, indices, updates, numbers, combiner, mode="drop", **kwargs):
    out = _run(operand, indices, updates, numbers, combiner, mode=mode, **kwargs)
    expected = reference_scatter(operand, indices, updates, numbers, combiner, mode)
    assert out.dtype == operand.dtype
    if combiner == "replace":  # exact: the last update of each row wins
        np.testing.assert_array_equal(np.asarray(out, np.float64), expected)
    else:
        assert_close_to_reference(out, expected, operand.dtype)


@pytest.mark.parametrize("combiner", [
    "add", pytest.param("mul", marks=pytest.mark.slow), pytest.param("min", marks=pytest.mark.slow),
    pytest.param("max", marks=pytest.mark.slow), "replace"])
def test_combiners_uniform_rows_with_duplicates_and_out_of_bounds(combiner):
    _check(*row_case(1, 37, 24, 90, "uniform", jnp.float32), ROWS, combiner)


@pytest.mark.parametrize("distribution, dtype, combiner", [
    ("zipf", jnp.bfloat16, "add"),
    ("identical", jnp.int32, "add"),
    ("zipf", jnp.float16, "max"),
    pytest.param("identical", jnp.float32, "replace", marks=pytest.mark.slow),
])
def test_contended_distributions_and_dtypes(distribution, dtype, combiner):
    _check(*row_case(2, 50, 40, 150, distribution, dtype), ROWS, combiner)


def test_window_scatter_with_partial_windows():
    # operand [6, 5, 7]: dim 0 indexed with windows of 2 rows, dim 1 inserted
    # and indexed, dim 2 a partial window of 4 (start 0).
    rng = np.random.default_rng(3)
    numbers = Dn(update_window_dims=(1, 2), inserted_window_dims=(1,),
                 scatter_dims_to_operand_dims=(0, 1))
    operand = values(rng, (6, 5, 7), jnp.float32)
    indices = jnp.asarray([[0, 1], [4, 4], [5, 0], [1, 1], [-1, 2], [3, 5], [4, 0]], jnp.int32)
    updates = values(rng, (7, 2, 4), jnp.float32)
    _check(operand, indices, updates, numbers, "add")
    _check(operand, indices, updates, numbers, "replace", mode="clip")


def test_batching_dims_transposed_updates_and_callable_combiner():
    # operand [3, 8, 4] batched along dim 0 with indices dim 0; updates carry
    # the window dim first.
    rng = np.random.default_rng(4)
    numbers = Dn(update_window_dims=(0,), inserted_window_dims=(1,),
                 scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                 scatter_indices_batching_dims=(0,))
    operand = values(rng, (3, 8, 4), jnp.float32)
    indices = jnp.asarray(rng.integers(-1, 9, size=(3, 5, 1)), jnp.int32)
    updates = values(rng, (4, 3, 5), jnp.float32)
    out = _run(operand, indices, updates, numbers, jax.lax.max)
    assert_close_to_reference(out, reference_scatter(operand, indices, updates, numbers, "max"),
                              jnp.float32)


def test_non_finite_updates_stay_in_their_rows():
    operand, indices, updates = row_case(5, 20, 16, 40, "uniform", jnp.float32)
    updates = updates.at[3, 2].set(jnp.inf).at[7, 5].set(jnp.nan)
    out = np.asarray(_run(operand, indices, updates, ROWS, "add"))
    expected = reference_scatter(operand, indices, updates, ROWS, "add")
    np.testing.assert_array_equal(np.isnan(out), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(out[finite], expected[finite], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(out[~finite], expected[~finite].astype(np.float32))


def test_sorted_hint_is_checked_not_trusted():
    operand, indices, updates = row_case(6, 30, 8, 50, "uniform", jnp.float32)
    # Unsorted indices with indices_are_sorted=True must still be right.
    _check(operand, indices, updates, ROWS, "add", indices_are_sorted=True,
           unique_indices=True)


def test_empty_updates_return_the_operand():
    operand = values(np.random.default_rng(7), (5, 3), jnp.float32)
    out = scatter(operand, jnp.zeros((0, 1), jnp.int32), jnp.zeros((0, 3), jnp.float32), ROWS)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(operand))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_random_configurations(seed):
    rng = np.random.default_rng(100 + seed)
    combiner = ["add", "mul", "min", "max", "replace"][seed % 5]
    dtype = [jnp.float32, jnp.bfloat16, jnp.float16, jnp.int32][seed % 4]
    distribution = ["uniform", "identical", "zipf"][seed % 3]
    vocab, width, n = (int(rng.integers(1, 300)), int(rng.integers(1, 160)),
                       int(rng.integers(1, 400)))
    _check(*row_case(seed, vocab, width, n, distribution, dtype), ROWS, combiner)
