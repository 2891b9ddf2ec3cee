"""Calls the kernel does not cover fall back to lax.dot_general, with a reason."""

import logging

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kernel_testing import (
    assert_close_to_reference,
    random_array,
    reference_dot_general,
)

from pallas_kernels import KernelDecision, dot_general, explain

MATMUL = (((1,), (0,)), ((), ()))


def _operands(lhs_dtype, rhs_dtype, shapes=((12, 20), (20, 7))):
    return random_array(21, shapes[0], lhs_dtype), random_array(22, shapes[1], rhs_dtype)


@pytest.mark.parametrize(
    "lhs_dtype, rhs_dtype, preferred, result_dtype, reason",
    [
        (jnp.complex64, jnp.complex64, None, jnp.complex64, "complex64 is not supported"),
        (jnp.int16, jnp.int16, None, jnp.int16, "int16 is not supported"),
        (jnp.uint8, jnp.uint8, None, jnp.uint8, "uint8 is not supported"),
        (jnp.bfloat16, jnp.float32, None, jnp.float32, "mixed input dtypes"),
        (jnp.int8, jnp.int8, None, jnp.int8, "output dtype int8"),
        (jnp.bfloat16, jnp.bfloat16, jnp.float16, jnp.float16, "output dtype float16"),
    ],
)
def test_unsupported_dtypes_fall_back_correctly(lhs_dtype, rhs_dtype, preferred,
                                                result_dtype, reason):
    lhs, rhs = _operands(lhs_dtype, rhs_dtype)
    decision = explain("dot_general", lhs, rhs, dimension_numbers=MATMUL,
                       preferred_element_type=preferred)
    assert isinstance(decision, KernelDecision)
    assert not decision.uses_kernel and reason in decision.reason
    out = jax.jit(lambda x, y: dot_general(x, y, MATMUL,
                                           preferred_element_type=preferred))(lhs, rhs)
    assert out.dtype == result_dtype
    expected = reference_dot_general(lhs, rhs, MATMUL)
    if jnp.issubdtype(result_dtype, jnp.integer):  # XLA wraps narrow integers
        expected = expected.astype(np.dtype(result_dtype)).astype(np.int64)
    assert_close_to_reference(out, expected, result_dtype)


def test_float64_is_explained_as_unsupported():
    lhs = jax.ShapeDtypeStruct((8, 8), np.float64)
    decision = explain("dot_general", lhs, lhs, MATMUL)
    assert not decision.uses_kernel and "float64" in decision.reason


def test_dot_algorithm_precision_falls_back():
    lhs, rhs = _operands(jnp.float32, jnp.float32)
    preset = jax.lax.DotAlgorithmPreset.F32_F32_F32
    decision = explain("dot_general", lhs, rhs, MATMUL, precision=preset)
    assert not decision.uses_kernel and "precision" in decision.reason
    out = dot_general(lhs, rhs, MATMUL, precision=preset)
    assert_close_to_reference(out, reference_dot_general(lhs, rhs, MATMUL), jnp.float32)


def test_empty_operand_falls_back():
    lhs = jnp.ones((0, 5), jnp.float32)
    rhs = random_array(23, (5, 3), jnp.float32)
    assert "empty" in explain("dot_general", lhs, rhs, MATMUL).reason
    assert dot_general(lhs, rhs, MATMUL).shape == (0, 3)


def test_invalid_call_raises_like_lax():
    lhs, rhs = _operands(jnp.float32, jnp.float32, shapes=((4, 5), (6, 3)))
    assert "contracting dimension sizes differ" in explain(
        "dot_general", lhs, rhs, MATMUL).reason
    with pytest.raises(TypeError):
        dot_general(lhs, rhs, MATMUL)


def test_fallback_reason_is_logged(caplog):
    lhs, rhs = _operands(jnp.int16, jnp.int16)
    with caplog.at_level(logging.DEBUG, logger="pallas_kernels"):
        dot_general(lhs, rhs, MATMUL)
    assert any("falling back to XLA" in r.getMessage() and "int16" in r.getMessage()
               for r in caplog.records)


def test_explain_reports_the_kernel_plan():
    lhs = jax.ShapeDtypeStruct((2, 30, 40), jnp.bfloat16)
    rhs = jax.ShapeDtypeStruct((40, 2, 50), jnp.bfloat16)
    decision = explain("dot_general", lhs, rhs, (((2,), (0,)), ((0,), (1,))),
                       preferred_element_type=jnp.float32)
    assert decision.uses_kernel and decision.reason == ""
    plan = decision.plan
    assert (plan.batch, plan.m, plan.k, plan.n) == (2, 30, 40, 50)
    assert plan.result_shape == (2, 30, 50)


def test_explain_unknown_op():
    with pytest.raises(ValueError, match="no Pallas kernel named"):
        explain("no_such_op")
