"""Calls the kernels do not cover fall back to lax.conv_general_dilated, with a reason."""

import json
import logging

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conv_reference import numpy_random, reference_conv
from kernel_testing import assert_close_to_reference

from pallas_kernels import conv_general_dilated, explain
from pallas_kernels.bench import cli

NHWC = ("NHWC", "HWIO", "NHWC")
OP = "conv_general_dilated"


def _explain(x, w, **kwargs):
    return explain(OP, x, w, **{"window_strides": (1,) * (x.ndim - 2), "padding": "VALID",
                                **kwargs})


@pytest.mark.parametrize("x_dtype, w_dtype, preferred, reason", [
    (jnp.int8, jnp.int8, None, "int8 is not supported"),
    (jnp.bfloat16, jnp.float32, None, "mixed input dtypes"),
    (jnp.float32, jnp.float32, jnp.bfloat16, "output dtype bfloat16"),
    (jnp.float64, jnp.float64, None, "float64 is not supported"),
])
def test_unsupported_dtypes_are_explained(x_dtype, w_dtype, preferred, reason):
    x = jax.ShapeDtypeStruct((1, 6, 6, 4), x_dtype)
    w = jax.ShapeDtypeStruct((3, 3, 4, 2), w_dtype)
    decision = _explain(x, w, dimension_numbers=NHWC, preferred_element_type=preferred)
    assert not decision.uses_kernel and reason in decision.reason


def test_three_d_convolution_falls_back_correctly():
    x = numpy_random(1, (1, 4, 5, 6, 2), jnp.float32)
    w = numpy_random(2, (2, 2, 3, 2, 3), jnp.float32)
    numbers = ("NDHWC", "DHWIO", "NDHWC")
    decision = _explain(x, w, dimension_numbers=numbers)
    assert not decision.uses_kernel and "3-D convolutions are not supported" in decision.reason
    out = conv_general_dilated(x, w, (1, 2, 1), "SAME", dimension_numbers=numbers,
                               precision="highest")
    expected = reference_conv(x, w, (1, 2, 1), "SAME", dimension_numbers=numbers)
    assert_close_to_reference(out, expected, jnp.float32)


def test_batch_group_count_with_feature_groups_falls_back():
    x = jax.ShapeDtypeStruct((4, 6, 6, 4), jnp.float32)
    w = jax.ShapeDtypeStruct((3, 3, 2, 4), jnp.float32)
    decision = _explain(x, w, dimension_numbers=NHWC, batch_group_count=2, feature_group_count=2)
    assert not decision.uses_kernel and "cannot both be > 1" in decision.reason


def test_dot_algorithm_precision_falls_back_correctly():
    x = numpy_random(3, (1, 5, 5, 2), jnp.float32)
    w = numpy_random(4, (3, 3, 2, 3), jnp.float32)
    preset = jax.lax.DotAlgorithmPreset.F32_F32_F32
    assert "precision" in _explain(x, w, dimension_numbers=NHWC, precision=preset).reason
    out = conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=NHWC,
                               precision=preset)
    expected = reference_conv(x, w, (1, 1), "VALID", dimension_numbers=NHWC)
    assert_close_to_reference(out, expected, jnp.float32)


def test_string_padding_with_lhs_dilation_raises_like_lax():
    x = numpy_random(5, (1, 4, 4, 2), jnp.float32)
    w = numpy_random(6, (3, 3, 2, 2), jnp.float32)
    decision = _explain(x, w, dimension_numbers=NHWC, padding="SAME", lhs_dilation=(2, 2))
    assert not decision.uses_kernel and "lhs_dilation" in decision.reason
    with pytest.raises(ValueError):
        conv_general_dilated(x, w, (1, 1), "SAME", lhs_dilation=(2, 2),
                             dimension_numbers=NHWC)


def test_empty_and_invalid_calls():
    x = jnp.ones((0, 5, 5, 2), jnp.float32)
    w = numpy_random(7, (3, 3, 2, 4), jnp.float32)
    assert "empty" in _explain(x, w, dimension_numbers=NHWC).reason
    assert conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=NHWC).shape == (
        0, 3, 3, 4)
    bad = numpy_random(8, (3, 3, 3, 4), jnp.float32)
    assert "feature_group_count" in _explain(jnp.ones((1, 5, 5, 2)), bad,
                                             dimension_numbers=NHWC).reason


def test_blocks_that_do_not_fit_vmem_fall_back():
    x = jax.ShapeDtypeStruct((1, 64, 64, 8192), jnp.float32)
    w = jax.ShapeDtypeStruct((5, 5, 8192, 512), jnp.float32)
    decision = _explain(x, w, dimension_numbers=NHWC)
    assert not decision.uses_kernel and "VMEM" in decision.reason


def test_fallback_reason_is_logged(caplog):
    x = jnp.arange(32, dtype=jnp.int8).reshape(1, 4, 4, 2)
    w = jnp.ones((3, 3, 2, 2), jnp.int8)
    with caplog.at_level(logging.DEBUG, logger="pallas_kernels"):
        out = conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=NHWC,
                                   preferred_element_type=jnp.int32)
    assert any("falling back to XLA" in r.getMessage() and "int8" in r.getMessage()
               for r in caplog.records)
    expected = reference_conv(x, w, (1, 1), "VALID", dimension_numbers=NHWC)
    np.testing.assert_array_equal(np.asarray(out), expected.astype(np.int64))


def test_explain_reports_the_plan():
    x = jax.ShapeDtypeStruct((2, 3, 17, 19), jnp.bfloat16)  # NCHW
    w = jax.ShapeDtypeStruct((8, 3, 3, 3), jnp.bfloat16)  # OIHW
    decision = _explain(x, w, window_strides=(2, 2), padding="SAME",
                        preferred_element_type=jnp.float32)
    assert decision.uses_kernel and decision.reason == ""
    plan = decision.plan
    assert plan.kind == "implicit_gemm" and plan.out_spatial == (9, 10)
    assert plan.out_dtype == np.float32
    assert plan.flops == 2 * 2 * 9 * 10 * 8 * 3 * 3 * 3


def test_bench_without_accelerator_exits_cleanly(capsys):
    assert cli.main(["conv"]) == 0
    assert "No GPU or TPU found" in capsys.readouterr().out


def test_bench_interpret_small_writes_json(tmp_path, capsys):
    path = tmp_path / "conv.json"
    assert cli.main(["conv", "--interpret", "--small", "--repeats", "1", "--warmup", "1",
                     "--filter", "small_3x3s2", "--json", str(path)]) == 0
    document = json.loads(path.read_text())
    assert document["suite"] == "conv" and document["interpret"] is True
    assert {r["dtype"] for r in document["results"]} == {"bfloat16", "float32"}
    for result in document["results"]:
        assert result["details"]["max_relative_difference_to_xla"] < 2e-2
        assert result["flops"] == 2 * 2 * 7 * 7 * 16 * 3 * 3 * 8
    assert "XLA/kernel" in capsys.readouterr().out
