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
