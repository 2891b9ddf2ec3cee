"""Gather and Scatter: hand-computed values, constraint ids, and the Pallas scatter kernel."""

from typing import Any

import jax
import numpy as np
import pytest

import specs
from backend import PrimitiveType, XlaBuilder, get_backend, ops
from backend.errors import OpError, UnsupportedError
from backend.pallas_backend import PALLAS_LOWERINGS
from conformance import cases_for, run_cases
from conformance.runner import PASSED
from tests.support.computations import binary_computation, scalar_parameters
from tests.support.running import array_parameter

ROWS = {"update_window_dims": (), "inserted_window_dims": (0,), "scatter_dims_to_operand_dims": (0,),
        "index_vector_dim": 1}


def _replace():
    """(old, new) -> new: a "replace" combiner (the last update to an element wins)."""
    sub, (_, new) = scalar_parameters("replace", PrimitiveType.F32, PrimitiveType.F32)
    return sub.build(new)


def _scatter(computation, n_updates=4, etype=PrimitiveType.F32, dn=None, **kw):
    b = XlaBuilder("scatter")
    operand = array_parameter(b, 0, etype, (4,))
    indices = array_parameter(b, 1, PrimitiveType.S32, (n_updates,))
    updates = array_parameter(b, 2, etype, (n_updates,))
    ops.Scatter([operand], indices, [updates], computation, dn or ROWS, **kw)
    return b.build()


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_gather_rows_clamped(backend):
    b = XlaBuilder("gather")
    operand = array_parameter(b, 0, PrimitiveType.S32, (3, 2))
    indices = array_parameter(b, 1, PrimitiveType.S32, (3,))
    dn = {"offset_dims": (1,), "collapsed_slice_dims": (0,), "start_index_map": (0,), "index_vector_dim": 1}
    ops.Gather(operand, indices, dn, (1, 2))
    x = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    out = get_backend(backend).execute(b.build(), [x, np.array([2, 7, -4], np.int32)])[0]
    np.testing.assert_array_equal(out, [[5, 6], [5, 6], [1, 2]])  # 7 -> 2, -4 -> 0


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_scatter_replace_last_update_wins(backend):
    comp = _scatter(_replace())
    args = [np.zeros(4, np.float32), np.array([1, 1, 3, 1], np.int32), np.array([1, 2, 3, 4], np.float32)]
    out = get_backend(backend).execute(comp, args)[0]
    np.testing.assert_array_equal(out, [0, 4, 0, 3])


@pytest.mark.parametrize("backend", ["reference", "jax", "pallas"])
def test_scatter_general_computation_keeps_argument_order(backend):
    comp = _scatter(binary_computation("Sub"), n_updates=2)
    args = [np.array([10, 20, 30, 40], np.float32), np.array([3, 0], np.int32), np.array([1, 5], np.float32)]
    out = get_backend(backend).execute(comp, args)[0]
    np.testing.assert_array_equal(out, [5, 20, 30, 39])


def _pair_computation():
    """(a0, a1, u0, u1) -> (a0 + u0, max(a1, u1))."""
    b = XlaBuilder("pair")
    a0, a1, u0, u1 = (array_parameter(b, i, PrimitiveType.S32, ()) for i in range(4))
    ops.Tuple(b, [ops.Add(a0, u0), ops.Max(a1, u1)])
    return b.build()


def _variadic_scatter(computation: Any) -> Any:
    b = XlaBuilder("variadic")
    x0, x1 = array_parameter(b, 0, PrimitiveType.S32, (3,)), array_parameter(b, 1, PrimitiveType.S32, (3,))
    idx = array_parameter(b, 2, PrimitiveType.S32, (2,))
    u0, u1 = array_parameter(b, 3, PrimitiveType.S32, (2,)), array_parameter(b, 4, PrimitiveType.S32, (2,))
    ops.Scatter([x0, x1], idx, [u0, u1], computation, ROWS)
    return b.build()


VARIADIC_ARGS = [np.array([1, 2, 3], np.int32), np.array([5, 5, 5], np.int32), np.array([2, 2], np.int32),
                 np.array([10, 20], np.int32), np.array([3, 9], np.int32)]


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_variadic_scatter(backend: str) -> None:
    # both updates land on element 2: 3 + 10 + 20 = 33 and max(5, 3, 9) = 9
    out = get_backend(backend).execute(_variadic_scatter(_pair_computation()), VARIADIC_ARGS)
    np.testing.assert_array_equal(out[0], [1, 2, 33])
    np.testing.assert_array_equal(out[1], [5, 5, 9])


def test_variadic_scatter_mixing_operands_unsupported_on_jax() -> None:
    b = XlaBuilder("mixing")
    a0, a1, u0, u1 = (array_parameter(b, i, PrimitiveType.S32, ()) for i in range(4))
    ops.Tuple(b, [ops.Add(a0, u1), ops.Max(a1, u0)])  # result 0 reads operand 1's update: not separable
    comp = _variadic_scatter(b.build())
    out = get_backend("reference").execute(comp, VARIADIC_ARGS)
    np.testing.assert_array_equal(out[0], [1, 2, 15])  # 3 + 3 + 9
    np.testing.assert_array_equal(out[1], [5, 5, 20])  # max(5, 10, 20)
    assert "mixes them" in get_backend("jax").supports(comp)
    with pytest.raises(UnsupportedError, match="mixes them"):
        get_backend("jax").execute(comp, VARIADIC_ARGS)


@pytest.mark.parametrize("kwargs,constraint", [
    ({"dn": {**ROWS, "index_vector_dim": 2}}, "C3"),
    ({"dn": {**ROWS, "inserted_window_dims": (1,)}}, "C5"),
    ({"dn": {**ROWS, "scatter_dims_to_operand_dims": (0, 0)}}, "C8"),
    ({"n_updates": 4, "etype": PrimitiveType.S32}, "C12"),
])
def test_scatter_constraint_ids(kwargs, constraint):
    with pytest.raises(OpError) as info:
        _scatter(binary_computation("Add"), **kwargs)
    assert info.value.constraint == constraint


def test_gather_collapsed_slice_size_must_be_one():
    b = XlaBuilder("gather")
    operand, indices = array_parameter(b, 0, PrimitiveType.F32, (3, 3)), array_parameter(b, 1, PrimitiveType.S32, (2, 1))
    dn = {"offset_dims": (1,), "collapsed_slice_dims": (0,), "start_index_map": (0,), "index_vector_dim": 1}
    with pytest.raises(OpError) as info:
        ops.Gather(operand, indices, dn, (2, 3))
    assert info.value.constraint == "C8"


def test_scatter_uses_the_kernel_lowering():
    assert "Scatter" in PALLAS_LOWERINGS.names()


# The scatter kernel's add path sums s32 rows with jnp.sum, which gives s64 under x64 (as the jax backend
# runs): pallas_kernels/scatter_kernel/gpu_kernel.py needs `.astype(accumulator)` after the reduction.
_INT_ADD_GOLDEN = ("add_rows", "repeated_indices_add", "out_of_bounds_windows_skipped")


def _pallas_failures(cases):
    results = run_cases(cases, get_backend("pallas"))
    return [f"{r.case.id}: {r.message}" for r in results if r.status != PASSED]


@pytest.mark.parametrize("op", ["Gather", "Scatter"])
def test_pallas_conformance_golden_and_some_generated(op):
    cases = [c for c in cases_for(specs.get(op)) if c.kind != "error"]
    picked = [c for c in cases if c.kind == "golden"]  # variadic scatter falls back to the jax lowering
    picked += [c for c in cases if "/f32/" in c.id][:4]
    bad = _pallas_failures(picked)
    assert not bad, "\n".join(bad)


def test_pallas_integer_add_golden():
    picked = [c for c in cases_for(specs.get("Scatter")) if c.id.rsplit("/", 1)[1] in _INT_ADD_GOLDEN]
    bad = _pallas_failures(picked)
    assert not bad, "\n".join(bad)


def test_scatter_add_lowers_to_a_pallas_kernel_for_tpu():
    comp = _scatter(binary_computation("Add"), n_updates=8)
    fn = get_backend("pallas").lower(comp)
    args = [jax.ShapeDtypeStruct((4,), np.float32), jax.ShapeDtypeStruct((8,), np.int32),
            jax.ShapeDtypeStruct((8,), np.float32)]
    text = fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text()
    assert "tpu_custom_call" in text
