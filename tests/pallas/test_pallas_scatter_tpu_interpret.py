"""The TPU scatter variant under TPU-semantics interpret mode."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import assert_close_to_reference
from scatter_cases import ROWS, row_case
from scatter_reference import reference_scatter

from pallas_kernels import scatter
from pallas_kernels.scatter_kernel.rows import DROPPED
from pallas_kernels.scatter_kernel.tpu_kernel import TpuScatterBlocks, scatter_rows_tpu, work_items
from pallas_kernels.toolkit import interpret_as, tpu_interpret_params


@pytest.mark.parametrize("distribution, dtype, combiner", [
    ("zipf", jnp.bfloat16, "add"),
    pytest.param("uniform", jnp.int32, "max", marks=pytest.mark.slow),
])
def test_public_api_runs_tpu_variant(distribution, dtype, combiner):
    operand, indices, updates = row_case(11, 150, 128, 300, distribution, dtype)
    with interpret_as("tpu"):
        out = jax.jit(lambda o, i, u: scatter(o, i, u, ROWS, combiner=combiner))(
            operand, indices, updates)
    expected = reference_scatter(operand, indices, updates, ROWS, combiner)
    assert_close_to_reference(out, expected, dtype)


def test_runs_spanning_many_chunks_and_tiles():
    # 8-row tiles and 128-update chunks: one tile's run crosses several chunks,
    # several tiles share a chunk, and tiles without updates are skipped.
    rng = np.random.default_rng(12)
    keys = np.sort(np.concatenate([np.full(300, 5), rng.integers(0, 40, 100),
                                   np.full(40, DROPPED)])).astype(np.int32)
    updates = jnp.asarray(rng.normal(size=(keys.size, 128)), jnp.float32)
    table = jnp.asarray(rng.normal(size=(40, 128)), jnp.float32)
    run = jax.jit(lambda t, k, u: scatter_rows_tpu(
        t, k, u, combiner="add", method="matmul", interpret=tpu_interpret_params(),
        blocks=TpuScatterBlocks(tr=8, td=128, c=128)))
    out = run(table, jnp.asarray(keys), updates)
    expected = np.asarray(table, np.float64)
    valid = keys != DROPPED
    np.add.at(expected, keys[valid], np.asarray(updates, np.float64)[valid])
    assert_close_to_reference(out, expected, jnp.float32)


def test_work_list_covers_each_tile_chunk_pair_once():
    keys = jnp.asarray(np.sort(np.r_[[0] * 5, [9] * 10, [30, 31]]).tolist() + [DROPPED] * 3,
                       jnp.int32)
    tile, chunk, lo, hi, first, last = (np.asarray(a) for a in work_items(keys, 4, 8, 4))
    covered = [(int(t), i) for t, a, b in zip(tile, lo, hi) for i in range(a, b)]
    assert sorted(i for _, i in covered) == list(range(17))  # every update once
    assert all(int(keys[i]) // 8 == t for t, i in covered)
    assert first[0] == 1 and last[-1] == 1
