"""Generated inputs reach every region the documents distinguish (conformance/values.py, conformance/generate.py):
exact ties, exact halfway points of each kind, tiny and huge magnitudes of both signs, zero-trip loops; and a
backend with a bug that only those regions show fails on the generated cases alone (not only on golden ones)."""

from __future__ import annotations

import functools
import math

import ml_dtypes
import numpy as np
import pytest

import specs
from backend.hlo.etypes import PrimitiveType
from conformance.cases import GENERATED
from conformance.generate import cases_for
from conformance.runner import FAILED, IMPL_DEFINED, run_cases
from conformance.values import INTEGER, halfway, halfway_kinds, random_array
from tests.support.mutant_backends import mutant_backend


@functools.cache
def _generated(op: str) -> tuple:
    return tuple(c for c in cases_for(specs.get(op)) if c.kind == GENERATED)


def _tie_kinds(x: float) -> set[tuple[int, int]]:
    """Worked out independently of conformance.values: the (kind, parity) pairs for which ``x`` is halfway between
    two integers (kind -1) or between two neighbours with m bits after the point (m of 0, 1, 2, 3, 7, 10, 23: 2x /
    spacing is odd), the parity that of the lower neighbour's last digit. 1.5 is both kinds -1 and 0."""
    if not math.isfinite(x) or x == 0:
        return set()
    a = abs(x)
    candidates = [(-1, 1.0)] + [(m, 2.0 ** (math.floor(math.log2(a)) - m)) for m in (0, 1, 2, 3, 7, 10, 23)]
    return {(kind, int(a // step) % 2) for kind, step in candidates
            if step > 0 and 2 * a / step == math.floor(2 * a / step) and int(2 * a / step) % 2 == 1}


def _all_kinds(values: object) -> set[tuple[int, int]]:
    return set().union(*(_tie_kinds(float(v)) for v in np.asarray(values, np.float64).ravel()))


def test_halfway_points_by_hand() -> None:
    # 1.74609375 = 223.5 / 128: between 223/128 and 224/128 (m = 7), lower neighbour odd -> ties to even round up
    assert halfway(1.7421875 + 0.001, 7, 1) == 1.74609375
    # the even lower neighbour next to it: 224.5 / 128
    assert halfway(1.7421875 + 0.001, 7, 0) == 1.75390625
    # at the top of the binade the lower neighbour steps down, not into the next binade: 1.99 -> 255.5 / 128
    assert halfway(1.99, 7, 1) == 1.99609375 and halfway(1.99, 7, 0) == 1.98828125
    assert halfway(-2.3, INTEGER, 0) == -2.5 and halfway(-2.3, INTEGER, 1) == -3.5
    assert halfway(3.0, 0, 1) == 3.0  # 1.5 * 2: between 2 and 4
    assert (0, 0) not in halfway_kinds(PrimitiveType.F32)  # no even neighbour below 1.5 * 2^e
    assert halfway_kinds(PrimitiveType.S32) == [] and halfway_kinds(PrimitiveType.C64) == []


def test_a_long_float_array_holds_every_kind_of_tie_and_both_signs_of_tiny_and_huge() -> None:
    rng = np.random.default_rng(7)
    for etype, dtype in ((PrimitiveType.F32, np.float32), (PrimitiveType.BF16, ml_dtypes.bfloat16),
                         (PrimitiveType.F16, np.float16)):
        values = random_array(rng, etype, (40,)).astype(np.float64)
        kinds = _all_kinds(values)
        assert set(halfway_kinds(etype)) <= kinds, (etype, sorted(set(halfway_kinds(etype)) - kinds))
        tiny, huge = float(ml_dtypes.finfo(dtype).tiny), float(ml_dtypes.finfo(dtype).max)
        specials = [random_array(rng, etype, (40,)).astype(np.float64) for _ in range(6)]
        seen = set(np.concatenate([values, *specials]).tolist())
        assert {tiny, -tiny, huge, -huge} <= seen, etype


def test_generated_arrays_hold_an_exact_tie() -> None:
    rng = np.random.default_rng(3)
    for etype in (PrimitiveType.F32, PrimitiveType.S32, PrimitiveType.U8):
        values = random_array(rng, etype, (6,))
        assert len(np.unique(values.astype(np.float64))) < 6, etype


def test_sort_and_top_k_cases_have_tied_keys() -> None:
    stable = [c for c in _generated("Sort") if c.attrs.get("is_stable") and len(c.inputs["operands"]) > 1]
    with_ties = [c for c in stable if len(np.unique(np.asarray(c.inputs["operands"][0]).astype(np.float64).ravel()))
                 < np.asarray(c.inputs["operands"][0]).size]
    assert len(with_ties) >= len(stable) // 2 > 0
    rows = [np.asarray(c.inputs["operand"]) for c in _generated("TopK") if np.asarray(c.inputs["operand"]).size >= 6]
    assert any(len(np.unique(r.astype(np.float64).ravel())) < r.size for r in rows)


def test_conversion_and_reduce_precision_cases_hold_ties_of_their_target_width() -> None:
    # f32 -> bf16 and f32 -> f16 ties (7 and 10 bits after the point), both parities; ReducePrecision e8m7 of f32
    for config, width in (("ties_to_bf16", 7), ("ties_to_f16", 10)):
        values = [c.inputs["operand"] for c in _generated("ConvertElementType") if f"/f32/{config}:" in c.id]
        assert {(width, 0), (width, 1)} <= set().union(*map(_all_kinds, values)), config
    values = [c.inputs["operand"] for c in _generated("ReducePrecision") if "/f32/e8m7:" in c.id]
    assert {(7, 0), (7, 1)} <= set().union(*map(_all_kinds, values))
    values = [c.inputs["operand"] for c in _generated("RoundNearestEven")]
    assert {(INTEGER, 0), (INTEGER, 1)} <= set().union(*map(_all_kinds, values))


# -- a backend with each bug fails on the generated cases alone ------------------------------------------------
@pytest.mark.parametrize(("mutant", "op", "configs"), [
    ("sort_unstable", "Sort", "is_stable=True"),
    ("convert_float_half_away", "ConvertElementType", "/ties_to_"),
    ("reduce_precision_half_away", "ReducePrecision", "/f32/"),
    ("round_nearest_even_half_away", "RoundNearestEven", "/"),
    ("while_one_more_iteration", "While", "/count_to_3:"),
    ("while_body_first", "While", "/zero_trip:"),
])
def test_generated_cases_catch_the_bug_by_value(mutant: str, op: str, configs: str) -> None:
    """Only the generated cases whose ids contain ``configs`` (the regions the bug lies in) run, to keep this fast."""
    cases = [c for c in _generated(op) if configs in c.id]
    results = run_cases(cases, mutant_backend(mutant), profile="spec")
    failed = [r for r in results if r.status == FAILED]
    assert failed, f"{mutant}: no generated case of {op} fails"
    assert all("timed out" not in r.message for r in failed)


def test_rng_bit_generator_must_be_deterministic_under_spec() -> None:
    cases = [c for c in _generated("RngBitGenerator") if c.id.endswith("/param")][:4]
    fresh = run_cases(cases, mutant_backend("rng_bit_generator_fresh_bits"), profile="spec")
    assert all(r.status == FAILED and "not deterministic" in r.message for r in fresh), fresh[0].message
    # other bits that are a function of the state: allowed under spec (reported as the other outcome), not under xla
    from tests.support.cases import FunctionBackend

    def other_bits(state: np.ndarray, shape: tuple, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(state.astype(np.uint64).tolist())
        bits = rng.integers(0, 256, shape + (np.dtype(dtype).itemsize,), dtype=np.uint8).view(dtype).reshape(shape)
        return state + np.uint64(1), bits

    for case in cases:
        shape = np.asarray(case.expected[1]).shape
        dtype = np.asarray(case.expected[1]).dtype
        backend = FunctionBackend("keyed_bits", lambda s, shape=shape, dtype=dtype: other_bits(s, shape, dtype))
        result = run_cases([case], backend, profile="spec")[0]
        assert result.status == IMPL_DEFINED, (case.id, result.message)
        assert run_cases([case], backend, profile="xla")[0].status == FAILED
