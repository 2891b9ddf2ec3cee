"""Compare and its named forms, Select and Clamp: hand-computed values and constraint ids."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from backend import ComparisonType, ops
from backend.reference.comparison import total_order_key
from tests.support.running import build_error, run_op

BACKENDS = ["reference", "jax"]


F32_LHS = np.array([1, np.nan, -0.0, 3, -np.inf], np.float32)
F32_RHS = np.array([2, np.nan, 0.0, 3, 0], np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("op", "expected"), [
    ("Lt", [True, False, False, False, True]),
    ("Ne", [True, True, False, False, True]),
    ("Ge", [False, False, True, True, False]),
    ("LtTotalOrder", [True, False, True, False, True]),
    ("EqTotalOrder", [False, True, False, True, False]),
])
def test_float_comparisons(backend: str, op: str, expected: list[bool]) -> None:
    out = run_op(backend, getattr(ops, op), F32_LHS, F32_RHS)
    assert out.dtype == np.bool_ and out.tolist() == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_total_order_by_sign_and_payload(backend: str) -> None:
    # -NaN(payload 1) < -NaN < -inf < -0 < +0 < +inf < +NaN < +NaN(payload 1)
    bits = [0xFFC00001, 0xFFC00000, 0xFF800000, 0x80000000, 0x00000000, 0x7F800000, 0x7FC00000, 0x7FC00001]
    v = np.array(bits, np.uint32).view(np.float32)
    lt = run_op(backend, ops.LtTotalOrder, v[:-1], v[1:])
    eq = run_op(backend, ops.EqTotalOrder, v, v)
    assert lt.all() and eq.all()


def test_total_order_keys_of_special_types() -> None:
    fnuz = np.array([0x80, 0xFF, 0x81, 0x00, 0x01, 0x7F], np.uint8).view(ml_dtypes.float8_e4m3fnuz)
    assert (np.diff(total_order_key(fnuz)) > 0).all()  # NaN, -240, -tiny, 0, tiny, 240
    e8m0 = np.array([0x00, 0x7F, 0xFE, 0xFF], np.uint8).view(ml_dtypes.float8_e8m0fnu)
    assert (np.diff(total_order_key(e8m0)) > 0).all()  # no sign bit: NaN (0xff) is largest
    f4 = np.array([0xF, 0x9, 0x8, 0x0, 0x1, 0x7], np.uint8).view(ml_dtypes.float4_e2m1fn)
    assert (np.diff(total_order_key(f4)) > 0).all()  # -6, -0.5, -0, +0, 0.5, 6


@pytest.mark.parametrize("backend", BACKENDS)
def test_compare_broadcast_and_types(backend: str) -> None:
    lhs = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    rhs = np.array([2, 5], np.int32)
    out = run_op(backend, lambda x, y: ops.Compare(x, y, [0], "GE", ComparisonType.SIGNED), lhs, rhs)
    assert out.tolist() == [[False, True, True], [False, True, True]]
    u = np.array([0, 255], np.uint8)
    assert run_op(backend, lambda x, y: ops.Compare(x, y, (), "LT"), u, u[::-1].copy()).tolist() == [True, False]


@pytest.mark.parametrize("backend", BACKENDS)
def test_select(backend: str) -> None:
    v1 = np.array([1, 2, 3, 4], np.int32)
    v2 = np.array([100, 200, 300, 400], np.int32)
    pred = np.array([True, False, False, True])
    assert run_op(backend, ops.Select, pred, v1, v2).tolist() == [1, 200, 300, 4]
    assert run_op(backend, ops.Select, np.array(False), v1, v2).tolist() == [100, 200, 300, 400]


@pytest.mark.parametrize("backend", BACKENDS)
def test_clamp(backend: str) -> None:
    out = run_op(backend, ops.Clamp, np.int32(0), np.array([-1, 5, 9], np.int32), np.int32(6))
    assert out.tolist() == [0, 5, 6]
    out = run_op(backend, ops.Clamp, np.float32(5), np.array([1, 3, 7], np.float32), np.float32(2))
    assert out.tolist() == [2, 2, 2]  # min > max: max (implementation-defined)
    out = run_op(backend, ops.Clamp, np.float32(0), np.array([np.nan, -0.0], np.float32), np.float32(1))
    assert np.isnan(out[0]) and out[1] == 0 and not np.signbit(out[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_complex_clamp_orders_as_max_and_min(backend: str) -> None:
    """min(max(a, x), b) in Max and Min's lexicographic order, worked by hand: 2+i is above 1 (real 2 > 1), -1+5i
    below 0; with equal real parts the imaginary parts decide (0.5+3i is above 0.5+2i). XLA compares real parts only
    (a departure, conformance/known_failures/jax.txt): on jax only the rows without a tie are checked."""
    lo = np.complex64([0, 0, 0.5 + 2j, 0.5 + 2j])
    x = np.complex64([2 + 1j, -1 + 5j, 0.5 + 3j, 1])
    hi = np.complex64([1, 1, 1 - 1j, 1 - 1j])
    out = run_op(backend, ops.Clamp, lo, x, hi)
    want = [1, 0, 0.5 + 3j, 1 - 1j]
    rows = 4 if backend == "reference" else 2
    assert out.dtype == np.complex64 and out[:rows].tolist() == want[:rows]


def test_reference_clamp_of_complex_is_min_of_max() -> None:
    """The reference's complex Clamp is its Max and Min composed (one order for the three ops), on random values with
    many ties of real and imaginary parts and NaN parts."""
    rng = np.random.default_rng(0)
    parts = np.array([-1, 0, 1, 2, np.nan])

    def draw() -> np.ndarray:
        return (rng.choice(parts, 64) + 1j * rng.choice(parts, 64)).astype(np.complex128)
    lo, x, hi = draw(), draw(), draw()
    composed = run_op("reference", ops.Min, run_op("reference", ops.Max, lo, x), hi)
    clamped = run_op("reference", ops.Clamp, lo, x, hi)
    assert clamped.view(np.float64).tobytes() == composed.view(np.float64).tobytes()


@pytest.mark.parametrize(("build", "shapes", "constraint"), [
    (ops.Lt, ("c64[2]", "c64[2]"), "C1"),
    (ops.LtTotalOrder, ("s32[2]", "s32[2]"), "C1"),
    (ops.Eq, ("f32[2,3]", "f32[3]"), "C2"),
    (lambda x, y: ops.Compare(x, y, [], "LT", "TOTALORDER"), ("s32[2]", "s32[2]"), "C5"),
    (lambda x, y: ops.Compare(x, y, [], "EQ", "SIGNED"), ("pred[2]", "pred[2]"), "C5"),
    (lambda x, y: ops.Compare(x, y, [], "LT"), ("c64[2]", "c64[2]"), "C6"),
    (ops.Select, ("s32[2]", "s32[2]", "s32[2]"), "C1"),
    (ops.Select, ("pred[]", "s32[4]", "s32[3]"), "C2"),
    (ops.Select, ("pred[3]", "s32[4]", "s32[4]"), "C3"),
    (ops.Clamp, ("c64[]", "c128[2]", "c64[]"), "C1"),
    (ops.Clamp, ("f32[2]", "f32[3]", "f32[]"), "C2"),
    (ops.Clamp, ("f32[]", "f32[3]", "f32[2]"), "C3"),
])
def test_constraint_ids(build: Callable[..., Any], shapes: tuple[str, ...], constraint: str) -> None:
    assert build_error(build, *shapes).constraint == constraint


def test_bad_direction_is_our_error() -> None:
    e = build_error(lambda x, y: ops.Compare(x, y, [], "BIGGER"), "f32[2]", "f32[2]")
    assert e.arg == "direction"
