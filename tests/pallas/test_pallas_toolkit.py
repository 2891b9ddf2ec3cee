"""Toolkit rules: tiling, padding, GPU block choice, the bench harness."""

import json

import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import random_array

from pallas_kernels.bench import cli
from pallas_kernels.dot.gpu_kernel import choose_gpu_blocks
from pallas_kernels.toolkit import (
    crop_to_shape,
    fit_block,
    fit_power_of_two_block,
    interpret_as,
    next_power_of_two,
    pad_to_shape,
    padded_size,
    tpu_tile,
)


def test_tpu_tiles_per_dtype():
    assert tpu_tile(np.float32) == (8, 128)
    assert tpu_tile(jnp.bfloat16) == (16, 128)
    assert tpu_tile(np.int8) == (32, 128)


@pytest.mark.parametrize("size, preferred, granule, expected",
                         [(1, 512, 8, 8), (1000, 512, 128, 512), (300, 512, 128, 384)])
def test_fit_block(size, preferred, granule, expected):
    assert fit_block(size, preferred, granule) == expected
    assert padded_size(size, expected) % expected == 0


def test_power_of_two_blocks():
    assert [next_power_of_two(v) for v in (1, 2, 3, 17, 64)] == [1, 2, 4, 32, 64]
    assert fit_power_of_two_block(5, 128, 16) == 16
    assert fit_power_of_two_block(100, 128, 16) == 128


def test_pad_and_crop_round_trip():
    x = random_array(31, (3, 5), jnp.float32)
    padded = pad_to_shape(x, (8, 8))
    assert padded.shape == (8, 8)
    assert float(jnp.abs(padded[3:]).sum() + jnp.abs(padded[:, 5:]).sum()) == 0.0
    np.testing.assert_array_equal(np.asarray(crop_to_shape(padded, (3, 5))), np.asarray(x))
    with pytest.raises(ValueError):
        pad_to_shape(x, (2, 5))


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16, jnp.float32, jnp.int8])
@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (16, 4096, 4096), (8192, 8192, 8192)])
def test_gpu_blocks_are_powers_of_two_and_fit_shared_memory(dtype, m, n, k):
    blocks = choose_gpu_blocks(m, n, k, np.dtype(dtype))
    for size in (blocks.bm, blocks.bn, blocks.bk):
        assert size >= 16 and size & (size - 1) == 0
    assert blocks.shared_memory_bytes(np.dtype(dtype)) <= 227 * 1024


def test_random_array_is_never_zero():
    for dtype in (jnp.float32, jnp.bfloat16, jnp.int8):
        values = np.asarray(random_array(32, (64,), dtype)).astype(np.float64)
        assert np.count_nonzero(values) == values.size


def test_interpret_as_rejects_unknown_variant():
    with pytest.raises(ValueError), interpret_as("rocm"):  # type: ignore[arg-type]
        pass


def test_bench_without_accelerator_exits_cleanly(capsys):
    assert cli.main(["dot"]) == 0
    assert "No GPU or TPU found" in capsys.readouterr().out


def test_bench_interpret_small_writes_json(tmp_path, capsys):
    path = tmp_path / "dot.json"
    assert cli.main(["dot", "--interpret", "--small", "--repeats", "1", "--warmup", "1",
                     "--filter", "64x64x64", "--json", str(path)]) == 0
    document = json.loads(path.read_text())
    assert document["suite"] == "dot" and document["interpret"] is True
    assert {r["dtype"] for r in document["results"]} == {"bfloat16", "float32"}
    for result in document["results"]:
        assert result["details"]["max_relative_difference_to_xla"] < 2e-2
    assert "XLA/kernel" in capsys.readouterr().out
