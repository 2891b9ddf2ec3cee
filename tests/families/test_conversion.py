"""ConvertElementType, BitcastConvertType and ReducePrecision: hand-computed values and constraint ids."""

import ml_dtypes
import numpy as np
import pytest

from backend import PrimitiveType, Shape, ops
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
from tests.support.cases import FunctionBackend, golden_case
from tests.support.running import op_error, run_op


def _convert(op, x, *attrs, backend="reference", **kwargs):
    """``op(x, *attrs, **kwargs)`` on ``backend`` (the attributes positional, as the tests write them)."""
    return run_op(backend, lambda p: getattr(ops, op)(p, *attrs, **kwargs), x)


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_convert_doc_example_and_saturation(backend):
    out = _convert("ConvertElementType", np.array([0, 1, 2], np.int32), PrimitiveType.F32, backend=backend)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 1.0, 2.0]
    x = np.array([1.9, -1.9, 1000, -1000, np.inf, np.nan], np.float32)
    assert _convert("ConvertElementType", x, "s8", backend=backend).tolist() == [1, -1, 127, -128, 127, 0]


def test_convert_rounds_once_to_nearest_even():
    x = np.array([1 + 2**-8 + 2**-30], np.float64)  # above the bf16 tie: up (through f32 it would tie down)
    assert _convert("ConvertElementType", x, "bf16").astype(float).tolist() == [1 + 2**-7]
    ties = np.array([2**24 + 1, 2**24 + 3], np.int32)
    assert _convert("ConvertElementType", ties, "f32").tolist() == [2**24, 2**24 + 4]
    big = np.array([2**53 + 1, 2**63 - 1], np.int64)
    assert _convert("ConvertElementType", big, "f64").tolist() == [2.0**53, 2.0**63]
    assert _convert("ConvertElementType", np.array([464, 500], np.float32), "f8e4m3fn").astype(float)[0] == 448


def test_convert_int_pred_complex():
    assert _convert("ConvertElementType", np.array([300, -129], np.int32), "s8").tolist() == [44, 127]
    assert _convert("ConvertElementType", np.array([9, -9], np.int32), "s4").astype(int).tolist() == [-7, 7]
    assert _convert("ConvertElementType", np.array([0.0, np.nan, -0.0], np.float32), "pred").tolist() == [False, True,
                                                                                                       False]
    assert _convert("ConvertElementType", np.array([2.7 + 5j], np.complex64), "s32").tolist() == [2]
    assert _convert("ConvertElementType", np.array([3], np.int8), "c128").tolist() == [3 + 0j]


def test_convert_constraints():
    assert op_error("ConvertElementType", Shape.token_shape(), new_element_type="f32").constraint == "C1"
    assert op_error("ConvertElementType", Shape.array_shape("f32", (2,)), new_element_type="token").constraint == "C2"
    assert op_error("ConvertElementType", Shape.array_shape("f32", (2,)),
                    new_element_type=PrimitiveType.TUPLE).constraint == "C2"


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_bitcast_widths(backend):
    out = _convert("BitcastConvertType", np.float32(1.0).reshape(()), "f16", backend=backend)
    assert out.shape == (2,) and out.tolist() == [0.0, 1.875]
    out = _convert("BitcastConvertType", np.array([[0, 0, 128, 63]], np.uint8), "f32", backend=backend)
    assert out.shape == (1,) and out.tolist() == [1.0]
    out = _convert("BitcastConvertType", np.array([0x12], np.int8), "s4", backend=backend)
    assert out.astype(int).tolist() == [[2, 1]]


def test_bitcast_constraints():
    assert op_error("BitcastConvertType", Shape.array_shape("pred", (2,)), new_element_type="u8").constraint == "C1"
    assert op_error("BitcastConvertType", Shape.array_shape("u8", (2,)), new_element_type="pred").constraint == "C2"
    assert op_error("BitcastConvertType", Shape.array_shape("c64", (2,)), new_element_type="f64").constraint == "C3"
    assert op_error("BitcastConvertType", Shape.array_shape("f16", (3,)), new_element_type="f32").constraint == "C4"
    assert op_error("BitcastConvertType", Shape.array_shape("f16", ()), new_element_type="f32").constraint == "C4"


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_reduce_precision_f16_format(backend):
    x = np.array([1 + 2**-11, 1 + 3 * 2**-11, 65519, 65520, 6.0e-5, np.nan, -0.0], np.float32)
    out = _convert("ReducePrecision", x, 5, 10, backend=backend)
    np.testing.assert_array_equal(out, np.array([1.0, 1 + 2**-9, 65504, np.inf, 0.0, np.nan, -0.0], np.float32))
    assert np.signbit(out[-1])


def test_reduce_precision_zero_mantissa_and_narrow_types():
    out = _convert("ReducePrecision", np.array([1.4, 1.5, 3, 6], np.float32), 8, 0)
    assert out.tolist() == [1.0, 2.0, 2.0, 8.0]
    out = _convert("ReducePrecision", np.array([1.375, 96], ml_dtypes.float8_e4m3fn), 3, 1)
    assert out.astype(float)[0] == 1.5 and np.isnan(out.astype(float)[1])


def test_reduce_precision_constraints():
    f32 = Shape.array_shape("f32", (2,))
    assert op_error("ReducePrecision", Shape.array_shape("s32", (2,)), exponent_bits=5,
                    mantissa_bits=2).constraint == "C1"
    assert op_error("ReducePrecision", f32, exponent_bits=0, mantissa_bits=2).constraint == "C2"
    assert op_error("ReducePrecision", f32, exponent_bits=5, mantissa_bits=-1).constraint == "C3"


def test_float_to_int_range_ends_at_the_exclusive_limit():
    """f64 2**63 is one past the s64 maximum (2**63 - 1 is not an f64: it rounds to 2**63), so its conversion is
    out of range: the float_to_int entry covers it and allows the x86 'integer indefinite' minimum, as IREE gives.
    -2**63 and 2**62 are in range."""
    from tests.support.cases import allowed_table

    x = np.array([2.0**63, -(2.0**63), 2.0**62, 1.0e19], np.float64)
    table = allowed_table("ConvertElementType", {"operand": x}, {"new_element_type": PrimitiveType.S64})
    entry = table["float_to_int"]
    assert entry.mask_of(0, x.shape).tolist() == [True, False, False, True]
    indefinite = entry.outcomes["indefinite"]
    assert np.asarray(indefinite).tolist()[0] == -(2**63)
    assert _convert("ConvertElementType", x, PrimitiveType.S64).tolist() == [2**63 - 1, -(2**63), 2**62, 2**63 - 1]


@pytest.mark.parametrize(("exponent_bits", "mantissa_bits", "constraint"),
                         [(8, 2**31, "C3"), (2**31, 10, "C2"), (2**40, 10, "C2")])
def test_reduce_precision_bits_beyond_s32_are_op_errors(exponent_bits, mantissa_bits, constraint):
    """HLO's exponent_bits and mantissa_bits are s32 (jax failed to lower 2^31); 2^31 - 1 still runs as a no-op."""
    x = np.array([1.3, 2.0], np.float32)
    error = op_error("ReducePrecision", x, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits)
    assert error.constraint == constraint and "2^31 - 1" in str(error)
    for backend in ("reference", "jax"):
        np.testing.assert_array_equal(run_op(backend, "ReducePrecision", x, exponent_bits=8,
                                             mantissa_bits=2**31 - 1), x)


@pytest.mark.parametrize(("old", "new"), [("S32", "U2"), ("F32", "S2"), ("U64", "U2"), ("F64", "S2")])
def test_jax_refuses_bitcasts_of_32_and_64_bit_types_to_2_bits(old, new):
    """XLA aborted the process compiling them (SIGABRT): supports() now says no, naming the op, and execute
    raises UnsupportedError. Run in a subprocess, so that a regression fails this test, not the test run."""
    from tests.support.isolated import run_isolated
    proc = run_isolated(f"""
        import numpy as np
        from backend import PrimitiveType, Shape, UnsupportedError, XlaBuilder, get_backend, ops
        from backend.hlo import etypes
        old, new = PrimitiveType.{old}, PrimitiveType.{new}
        b = XlaBuilder("bitcast")
        ops.BitcastConvertType(ops.Parameter(b, 0, Shape.array_shape(old, (2,)), "x"), new)
        jax = get_backend("jax")
        print(jax.supports(b.build()))
        try:
            jax.execute(b.build(), [np.ones(2, etypes.etype_to_dtype(old))])
        except UnsupportedError as e:
            print("refused", e.op)
    """)
    assert proc.returncode == 0, proc.stderr[-2000:]
    reason, refused = proc.stdout.splitlines()
    assert reason.startswith("BitcastConvertType: XLA aborts the process bitcasting") and refused == "refused BitcastConvertType"


@pytest.mark.parametrize("old", [PrimitiveType.S8, PrimitiveType.F16, PrimitiveType.S32])
def test_bitcasts_to_narrow_types_that_xla_runs_still_run_on_jax(old):
    """s8 1 -> u2 [1, 0, 0, 0] (little-endian 2-bit groups); f16 1.0 = 0x3c00 -> u4 [0, 0, 12, 3]; s32 1 -> s4
    [1, 0, 0, 0, 0, 0, 0, 0]."""
    new, expected = {PrimitiveType.S8: (PrimitiveType.U2, [1, 0, 0, 0]),
                     PrimitiveType.F16: (PrimitiveType.U4, [0, 0, 12, 3]),
                     PrimitiveType.S32: (PrimitiveType.S4, [1, 0, 0, 0, 0, 0, 0, 0])}[old]
    x = np.ones(1, {PrimitiveType.S8: np.int8, PrimitiveType.F16: np.float16, PrimitiveType.S32: np.int32}[old])
    out = run_op("jax", "BitcastConvertType", x, new_element_type=new)
    assert out.astype(np.int64).tolist() == [expected]


def test_inexact_to_e8m0_rounds_to_the_nearer_or_the_lower_power_of_two_and_nothing_else() -> None:
    """f8e8m0fnu holds powers of two: 3 lies between 2 and 4, 7 between 4 and 8 (nearest ties up: 4 and 8, XLA;
    the lower: 2 and 4, IREE); 0.25 and 64 are exact under both."""
    e8m0 = ml_dtypes.float8_e8m0fnu
    case = golden_case("ConvertElementType", {"operand": np.float32([3, 7, 0.25, 64])},
                       np.array([4, 8, 0.25, 64], e8m0), attrs={"new_element_type": "f8e8m0fnu"})
    lower = FunctionBackend("e8m0_toward_zero", lambda x: np.array([2, 4, 0.25, 64], e8m0))
    result = run_case(case, lower)
    assert result.status == IMPL_DEFINED and "inexact_to_e8m0: chose 'toward_zero'" in result.message
    assert run_case(case, lower, profile="xla").status == FAILED
    assert run_case(case, FunctionBackend("e8m0_up", lambda x: np.array([4, 8, 0.5, 64], e8m0))).status == FAILED
    assert run_case(case, FunctionBackend("nearest", lambda x: np.array([4, 8, 0.25, 64], e8m0))).status == PASSED


def test_nan_to_f4e2m1fn_is_a_zero_of_either_sign_and_nothing_else() -> None:
    """f4e2m1fn has no NaN: XLA gives -0.0 (the reference), IREE's vmvx +0.0; the documents leave it open (static_cast
    of a value the type cannot hold; StableHLO: TBD). 7 and -100 saturate to +-6 under both; any nonzero value at the
    NaN is a failure, as is +0 under the xla profile."""
    f4 = ml_dtypes.float4_e2m1fn
    case = golden_case("ConvertElementType", {"operand": np.float32([7, -100, np.nan])},
                       np.array([6, -6, -0.0], f4), attrs={"new_element_type": "f4e2m1fn"})
    plus_zero = FunctionBackend("nan_to_plus_zero", lambda x: np.array([6, -6, 0.0], f4))
    result = run_case(case, plus_zero)
    assert result.status == IMPL_DEFINED and "no_nan_encoding: chose 'either_zero'" in result.message
    assert run_case(case, plus_zero, profile="xla").status == FAILED
    assert run_case(case, FunctionBackend("nan_to_half", lambda x: np.array([6, -6, 0.5], f4))).status == FAILED
    assert run_case(case, FunctionBackend("xla", lambda x: np.array([6, -6, -0.0], f4))).status == PASSED
