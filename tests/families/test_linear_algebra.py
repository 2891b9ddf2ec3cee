"""Dot and DotGeneral on the builder's ``pallas`` backend, which runs them through the Pallas kernel."""

import jax
import numpy as np
import pytest

import specs
from backend import PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.pallas_backend import PALLAS_LOWERINGS
from conformance import cases_for, run_cases
from conformance.runner import IMPL_DEFINED, PASSED


def _matmul(etype=PrimitiveType.F32, m=128, k=256, n=128):
    b = XlaBuilder("matmul")
    x = ops.Parameter(b, 0, Shape.array_shape(etype, (m, k)), "x")
    y = ops.Parameter(b, 1, Shape.array_shape(etype, (k, n)), "y")
    ops.DotGeneral(x, y, (((1,), (0,)), ((), ())))
    return b.build()


def test_dot_ops_use_the_kernel_lowering():
    assert {"Dot", "DotGeneral"} <= set(PALLAS_LOWERINGS.names())


@pytest.mark.parametrize("platform,marker", [("tpu", "tpu_custom_call"), ("cuda", "triton")])
def test_builder_computation_lowers_to_a_pallas_kernel(platform, marker):
    comp = _matmul(PrimitiveType.BF16)
    fn = get_backend("pallas").lower(comp)
    args = [jax.ShapeDtypeStruct((128, 256), jax.numpy.bfloat16), jax.ShapeDtypeStruct((256, 128), jax.numpy.bfloat16)]
    text = fn.trace(*args).lower(lowering_platforms=(platform,)).as_text()
    assert marker in text


def test_result_matches_float64_product():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 256)).astype(np.float32)
    y = rng.standard_normal((256, 128)).astype(np.float32)
    out = get_backend("pallas").execute(_matmul(), [x, y])[0]
    np.testing.assert_allclose(out, x.astype(np.float64) @ y.astype(np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["Dot", "DotGeneral"])
def test_conformance_golden_and_generated_cases(op):
    cases = [c for c in cases_for(specs.get(op)) if c.kind != "error"][:24]
    results = run_cases(cases, get_backend("pallas"))
    # overflowing_products: the kernel's f32 accumulation gives one of the allowed outcomes (NaN)
    bad = [f"{r.case.id}: {r.message}" for r in results if r.status not in (PASSED, IMPL_DEFINED)]
    assert not bad, "\n".join(bad)


def test_accumulating_in_a_narrow_result_type_is_allowed_within_the_summation_bound() -> None:
    """f8e4m3fn has 3 mantissa bits: 1 + 1/16 is a tie that rounds to 1, so adding eight products 1/16 to 1 in the
    result type (as IREE accumulates f8) stays at 1, while the exact sum 1.5 is representable. The documents leave
    the accumulation type to the backend: 1 is allowed (within ((1 + 2^-4)^10 - 1) * 1.5 + ulp = 1.44 of 1.5),
    3 is not."""
    import ml_dtypes

    from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
    from tests.support.cases import FunctionBackend, allowed_table, golden_case

    f8 = ml_dtypes.float8_e4m3fn
    lhs = np.array([1] + [0.0625] * 8, f8)
    rhs = np.ones(9, f8)
    case = golden_case("Dot", {"lhs": lhs, "rhs": rhs}, np.array(1.5, f8))
    assert "accumulation_rounding" in allowed_table("Dot", case.inputs, {})

    def in_result_type(x, y):
        total = np.array(0, f8)
        for a, b in zip(x, y):
            total = np.array(np.float32(total) + np.float32(np.array(np.float32(a) * np.float32(b), f8)), f8)
        return total

    assert float(in_result_type(lhs, rhs)) == 1.0
    assert run_case(case, get_backend("reference")).status == PASSED
    rounded = run_case(case, FunctionBackend("f8_accumulation", in_result_type))
    assert rounded.status == IMPL_DEFINED and "result_type" in rounded.message
    assert run_case(case, FunctionBackend("doubled", lambda x, y: np.array(3.0, f8))).status == FAILED
    # f32 results keep the spec's tolerance alone: no such entry
    assert "accumulation_rounding" not in allowed_table("Dot", {"lhs": np.ones(3, np.float32),
                                                                "rhs": np.ones(3, np.float32)}, {})
