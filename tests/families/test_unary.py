"""Hand-computed values and constraint ids of the element-wise one-operand ops."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from backend import ops
from backend.hlo.attribute_types import ResultAccuracy, ResultAccuracyMode
from backend.hlo.builder import XlaBuilder
from backend.hlo.shape import Shape
from conformance.runner import FAILED, IMPL_DEFINED, run_case
from tests.support.cases import FunctionBackend, golden_case
from tests.support.running import op_error, run_op

# exact results: compared bit for bit (signed zeros included)
EXACT = [
    ("Ceil", np.float32([-1.5, -0.5, 0.5, 2.0]), np.float32([-1, -0.0, 1, 2])),
    ("Floor", np.float32([-1.5, -0.5, 0.5, np.inf]), np.float32([-2, -1, 0, np.inf])),
    ("Round", np.float32([0.5, -2.5, -0.4, 1.5]), np.float32([1, -3, -0.0, 2])),
    ("RoundNearestAfz", np.float64([0.49999999999999994, 2.5]), np.float64([0, 3])),
    ("RoundNearestEven", np.float32([0.5, 1.5, 2.5, -0.5]), np.float32([0, 2, 2, -0.0])),
    ("Sign", np.float32([-3, -0.0, 0.0, 7]), np.float32([-1, -0.0, 0.0, 1])),
    ("Sign", np.int8([-128, 0, 127]), np.int8([-1, 0, 1])),
    ("Neg", np.int8([-128, 5]), np.int8([-128, -5])),
    ("Neg", np.uint8([1, 0]), np.uint8([255, 0])),
    ("Neg", np.float32([0.0, -2]), np.float32([-0.0, 2])),
    ("Not", np.array([True, False]), np.array([False, True])),
    ("Not", np.int32([0, 5]), np.int32([-1, -6])),
    ("Not", np.uint8([15]), np.uint8([240])),
    ("Clz", np.int32([0, 1, -1, 256]), np.int32([32, 31, 0, 23])),
    ("Clz", np.uint8([0, 128, 15]), np.uint8([8, 0, 4])),
    ("PopulationCount", np.int32([0, -1, 7]), np.int32([0, 32, 3])),
    ("PopulationCount", np.array([-1, 5], ml_dtypes.int4), np.array([4, 2], ml_dtypes.int4)),
    ("IsFinite", np.float32([1, np.inf, -np.inf, np.nan]), np.array([True, False, False, False])),
    ("Real", np.complex64([1 + 2j, complex(-3, -0.0)]), np.float32([1, -3])),
    ("Imag", np.complex64([1 + 2j, complex(-3, -0.0)]), np.float32([2, -0.0])),
    ("Imag", np.float32([5, np.nan]), np.float32([0, 0])),
    ("Real", np.float64([5, -0.0]), np.float64([5, -0.0])),
    ("Abs", np.int8([-128, -3]), np.int8([-128, 3])),
    ("Abs", np.complex64([3 + 4j]), np.float32([5])),
    ("Sqrt", np.float32([4, -0.0, np.inf]), np.float32([2, -0.0, np.inf])),
    ("Rsqrt", np.float32([0.25, 0.0, -0.0]), np.float32([2, np.inf, -np.inf])),
    ("Exp", np.float32([0, -np.inf, np.inf]), np.float32([1, 0, np.inf])),
    ("Log", np.float32([1, 0, -1]), np.float32([0, -np.inf, np.nan])),
    ("Log1p", np.float32([-1, -0.0]), np.float32([-np.inf, -0.0])),
    ("Expm1", np.float32([-np.inf, -0.0]), np.float32([-1, -0.0])),
    # e^x overflows; the parts' signs are those of cos y and sin y (mpmath: cos 13789.8037 = -0.2155,
    # sin = -0.9765; cos 2088.0244 = -0.4224, sin = 0.9064). The reference gave NaN real parts (found by the fuzzer).
    ("Expm1", np.complex64([6098.8496 + 13789.8037j, 13955.982 + 2088.0244j]),
     np.complex64([complex(-np.inf, -np.inf), complex(-np.inf, np.inf)])),
    ("Logistic", np.float32([0, np.inf, -np.inf]), np.float32([0.5, 1, 0])),
    ("Tanh", np.float32([np.inf, -0.0]), np.float32([1, -0.0])),
    ("Erf", np.float32([np.inf, -0.0]), np.float32([1, -0.0])),
]

# transcendental results: within a few ulps of the hand-computed value
CLOSE = [
    ("Exp", np.float64([1, -1]), np.float64([math.e, 1 / math.e])),
    ("Log", np.float64([10, 0.5]), np.float64([2.302585092994046, -0.6931471805599453])),
    ("Sin", np.float64([1, -0.5]), np.float64([0.8414709848078965, -0.479425538604203])),
    ("Cos", np.float32([1]), np.float32([0.5403023058681398])),
    ("Tan", np.float64([1]), np.float64([1.5574077246549023])),
    ("Cbrt", np.float64([-8, 27, 2]), np.float64([-2, 3, 1.2599210498948732])),
    ("Cosh", np.float64([1]), np.float64([1.5430806348152437])),
    ("Erf", np.float64([1, 0.5]), np.float64([0.8427007929497149, 0.5204998778130465])),
    ("Erf", np.float64(0.5), np.float64(0.5204998778130465)),  # rank 0 (the reference once crashed here)
    ("Expm1", np.float64([1e-10]), np.float64([1.00000000005e-10])),
    ("Log1p", np.float64([1e-10]), np.float64([9.9999999995e-11])),
    ("Logistic", np.float64([1]), np.float64([0.7310585786300049])),
    ("Sqrt", np.complex128([3 + 4j]), np.complex128([2 + 1j])),
    ("Log", np.complex128([-1 + 0j]), np.complex128([math.pi * 1j])),
    ("Exp", np.complex64([1 + 1j]), np.complex64([1.4686939399158851 + 2.2873552871788423j])),
]


@pytest.mark.parametrize("backend", ["reference", "jax"])
@pytest.mark.parametrize("op,operand,expected", EXACT, ids=[f"{c[0]}-{i}" for i, c in enumerate(EXACT)])
def test_exact_values(backend: str, op: str, operand: np.ndarray, expected: np.ndarray) -> None:
    out = run_op(backend, op, operand)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)
    if out.dtype.kind == "f":
        numbers = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(out[numbers]), np.signbit(expected[numbers]))


@pytest.mark.parametrize("backend", ["reference", "jax"])
@pytest.mark.parametrize("op,operand,expected", CLOSE, ids=[f"{c[0]}-{i}" for i, c in enumerate(CLOSE)])
def test_close_values(backend: str, op: str, operand: np.ndarray, expected: np.ndarray) -> None:
    out = run_op(backend, op, operand)
    assert out.dtype == expected.dtype
    rtol = 1e-6 if out.dtype in (np.float32, np.complex64) else 1e-14
    np.testing.assert_allclose(out, expected, rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("accuracy", ["HIGHEST", "DEFAULT", {"atol": 1e-6, "rtol": 0.0, "ulps": 1},
                                      ResultAccuracy(ResultAccuracyMode.HIGHEST)])
def test_result_accuracy_is_accepted(accuracy: Any) -> None:
    for backend in ("reference", "jax"):
        out = run_op(backend, "Exp", np.float32([0, 1]), result_accuracy=accuracy)
        np.testing.assert_allclose(out, np.float32([1, math.e]), rtol=1e-6)


@pytest.mark.parametrize("op,shape", [
    ("Exp", "s32[3]"), ("Erf", "c64[2]"), ("Cbrt", "pred[1]"), ("Ceil", "s32[2]"), ("Round", "c64[1]"),
    ("IsFinite", "c64[2]"), ("Clz", "f32[2]"), ("PopulationCount", "pred[2]"), ("Not", "f32[2]"),
    ("Sign", "u32[2]"), ("Abs", "u8[2]"), ("Neg", "pred[2]"), ("Real", "s32[2]"), ("Imag", "pred[2]"),
])
def test_element_type_is_c1(op: str, shape: str) -> None:
    err = op_error(op, shape)
    assert err.constraint == "C1"
    assert err.arg == "operand"


@pytest.mark.parametrize("field,value", [("atol", -1e-6), ("rtol", -0.5), ("ulps", -1)])
def test_negative_tolerance_is_c2(field: str, value: float) -> None:
    err = op_error("Sin", "f32[3]", result_accuracy={field: value})
    assert err.constraint == "C2"
    assert err.arg == "result_accuracy"
    assert field in str(err)


def test_bad_result_accuracy_is_arg_type() -> None:
    assert op_error("Tanh", "f32[3]", result_accuracy="FASTEST").constraint == "arg-type"


def test_result_types() -> None:
    b = XlaBuilder("types")
    z = ops.Parameter(b, 0, Shape.array_shape("c128", [2, 3]), "z")
    assert b.get_shape(ops.Real(z)) == Shape.array_shape("f64", [2, 3])
    assert b.get_shape(ops.Abs(z)) == Shape.array_shape("f64", [2, 3])
    assert b.get_shape(ops.Sqrt(z)) == Shape.array_shape("c128", [2, 3])
    x = ops.Parameter(b, 1, Shape.array_shape("bf16", [4]), "x")
    assert b.get_shape(ops.IsFinite(x)) == Shape.array_shape("pred", [4])


def test_tan_of_tiny_normals_keeps_their_sign() -> None:
    """tan(x) rounds to x for tiny normals: a backend whose tan of tiny negative arguments is positive (IREE's f32
    tan) fails."""
    from backend import get_backend
    from conformance.runner import FAILED, PASSED, run_case
    from tests.support.cases import FunctionBackend, spec_example_case

    for name in ("tiny_normals", "tiny_normals_f64"):
        case = spec_example_case("Tan", name)
        assert run_case(case, get_backend("reference")).status == PASSED
        assert run_case(case, get_backend("jax")).status == PASSED
        assert run_case(case, FunctionBackend("tan_abs", lambda x: np.abs(np.tan(x)))).status == FAILED


@pytest.mark.parametrize("op", ["Tanh", "Exp", "Cbrt"])
def test_zero_tolerance_result_accuracy_is_refused_up_front_on_jax(op):
    """XLA accepts atol = rtol = 0, ulps = 0 (the exact result); jax.lax.Tolerance refuses it, so supports() says no
    (before: an ExecutionError from inside jax). The reference runs it; a non-zero tolerance runs on jax."""
    from backend import UnsupportedError, get_backend
    from tests.support.running import op_computation
    x = np.array([0.5, 1.0], np.float32)
    zero = ResultAccuracy(mode=ResultAccuracyMode.TOLERANCE, atol=0.0, rtol=0.0, ulps=0)
    computation = op_computation(op, x, result_accuracy=zero)
    reason = get_backend("jax").supports(computation)
    assert reason is not None and "atol = rtol = 0 and ulps = 0" in reason and reason.startswith(op)
    with pytest.raises(UnsupportedError):
        get_backend("jax").execute(computation, [x])
    expected = {"Tanh": np.tanh(x), "Exp": np.exp(x), "Cbrt": np.cbrt(x)}[op]
    np.testing.assert_allclose(run_op("reference", op, x, result_accuracy=zero), expected, rtol=1e-6)
    loose = ResultAccuracy(mode=ResultAccuracyMode.TOLERANCE, atol=1e-6)
    np.testing.assert_allclose(run_op("jax", op, x, result_accuracy=loose), expected, rtol=1e-6)


def test_complex_abs_overflow_allows_the_naive_formula_only_where_the_squares_leave_the_range() -> None:
    """|3e307 + 4e307i| = 5e307 and |1e-300 + 1e-300i| = 1.414e-300 (by hand); sqrt(re^2 + im^2) in f64 gives inf
    and 0 there (IREE); |3 + 4i| = 5 has in-range squares, so the formula's value must be the modulus."""
    inputs = {"operand": np.complex128([3e307 + 4e307j, 1e-300 + 1e-300j, 3 + 4j])}
    case = golden_case("Abs", inputs, np.float64([5e307, 1.4142135623730951e-300, 5]))
    naive = FunctionBackend("naive_abs", lambda z: np.float64([np.inf, 0.0, 5.0]))
    result = run_case(case, naive)
    assert result.status == IMPL_DEFINED and "complex_overflow: chose 'naive_formula'" in result.message
    assert run_case(case, naive, profile="xla").status == FAILED
    wrong = FunctionBackend("abs_off", lambda z: np.float64([np.inf, 0.0, 5.5]))
    assert run_case(case, wrong).status == FAILED
