"""ScaledDot and RaggedDot: hand-computed values, independent loop implementations on random inputs
(reference and jax), the builder's errors for malformed dimension numbers, and RaggedDot's out-of-range group
sizes (an implementation-defined entry narrowed to a closed set)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from jax import lax

from backend.backends import get_backend
from backend.errors import OpError
from backend.hlo.attribute_types import DotDimensionNumbers, RaggedDotDimensionNumbers
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
from tests.support.cases import allowed_table, golden_case
from tests.support.mutant_backends import mutant_backend
from tests.support.running import op_computation, run_op

BACKENDS = ("reference", "jax")
F8, E8M0, F4 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu, ml_dtypes.float4_e2m1fn


MATMUL = (((1,), (0,)), ((), ()))


# ---- ScaledDot -------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_scaled_dot_mx_blocks_by_hand(backend: str) -> None:
    # lhs [1,2,3,4] in blocks of 2 scaled by 2 and 0.5 -> [2,4,1.5,2]; rhs column of ones scaled by 1, 1, 4, 4
    lhs = np.array([[1, 2, 3, 4]], F8)
    lhs_scale = np.array([[2, 0.5]], E8M0)
    rhs = np.ones((4, 2), F8)
    rhs_scale = np.array([[1, 1], [4, 0.25]], E8M0)  # column 1 scaled by 1, 1 then 0.25, 0.25
    out = run_op(backend, "ScaledDot", lhs, lhs_scale, rhs, rhs_scale, dimension_numbers=MATMUL,
                 preferred_element_type=np.float32)
    # column 0: 2+4 + 4*(1.5+2) = 20; column 1: 1*(2+4) + 0.25*(1.5+2) = 6.875
    np.testing.assert_array_equal(out, np.array([[20, 6.875]], np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_scaled_dot_fp4_rounds_into_bf16(backend: str) -> None:
    lhs = np.array([[0.5, 1.5], [6, -2]], F4)
    rhs = np.array([[2], [1]], F4)
    out = run_op(backend, "ScaledDot", lhs, np.array([[0.25]], E8M0), rhs, np.array([[8]], E8M0),
                 dimension_numbers=MATMUL, preferred_element_type=ml_dtypes.bfloat16)
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), [[5], [20]])  # 0.125*16 + 0.375*8; 1.5*16 - 0.5*8


def _scaled_dot_loops(lhs: np.ndarray, ls: np.ndarray, rhs: np.ndarray, rs: np.ndarray) -> np.ndarray:
    """out[m, n] = sum_k lhs[m, k] ls[m // bm, k // bk] rhs[k, n] rs[k // bk', n // bn], plain loops."""
    m, k = lhs.shape
    n = rhs.shape[1]
    bm, bk = m // ls.shape[0], k // ls.shape[1]
    bk2, bn = k // rs.shape[0], n // rs.shape[1]
    out = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            for p in range(k):
                out[i, j] += float(lhs[i, p]) * float(ls[i // bm, p // bk]) * float(rhs[p, j]) * float(rs[p // bk2, j // bn])
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_scaled_dot_matches_loops_on_random_mx_inputs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lhs = rng.uniform(-8, 8, (4, 8)).astype(F8)
    rhs = rng.uniform(-8, 8, (8, 6)).astype(F8)
    ls = (2.0 ** rng.integers(-3, 4, (2, 2))).astype(E8M0)  # blocks of 2 rows x 4 columns
    rs = (2.0 ** rng.integers(-3, 4, (4, 3))).astype(E8M0)  # blocks of 2 x 2
    want = _scaled_dot_loops(lhs, ls, rhs, rs)
    for backend in BACKENDS:
        got = run_op(backend, "ScaledDot", lhs, ls, rhs, rs, dimension_numbers=MATMUL, preferred_element_type="f32")
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=backend)  # exact products, f32 sums of 8


def test_scaled_dot_takes_the_seeds_argument_name_and_checks_blocks() -> None:
    lhs, rhs = np.ones((2, 4), F8), np.ones((4, 2), F8)
    comp = op_computation("ScaledDot", lhs, np.ones((2, 2), E8M0), rhs, np.ones((2, 2), E8M0), dimension_number=MATMUL)
    assert comp.root_instruction.shape.dimensions() == (2, 2)
    with pytest.raises(OpError) as e:
        op_computation("ScaledDot", lhs, np.ones((2, 3), E8M0), rhs, np.ones((2, 2), E8M0), dimension_numbers=MATMUL)
    assert (e.value.constraint, e.value.arg) == ("C8", "lhs_scale")
    with pytest.raises(OpError) as e:
        op_computation("ScaledDot", lhs, np.ones((2, 2), np.int32), rhs, np.ones((2, 2), E8M0),
                       dimension_numbers=MATMUL)
    assert e.value.constraint == "C1"


# ---- RaggedDot -------------------------------------------------------------------------------------

def _group_of(i: int, sizes: np.ndarray) -> int | None:
    start = 0
    for j, size in enumerate(sizes):
        if start <= i < start + size:
            return j
        start += size
    return None


def _ragged_non_contracting_loops(lhs: np.ndarray, rhs: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """[b, m, k] x [g, b, k, n] with sizes [b, g] -> [b, m, n]; rows in no group are 0."""
    b, m, k = lhs.shape
    out = np.zeros((b, m, rhs.shape[-1]))
    for bi in range(b):
        for i in range(m):
            j = _group_of(i, sizes[bi])
            if j is not None:
                for p in range(k):
                    out[bi, i] += lhs[bi, i, p] * rhs[j, bi, p]
    return out


def _ragged_contracting_loops(lhs: np.ndarray, rhs: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """[m, k] x [k, n] with sizes [g] -> [g, m, n]: group j sums over its own part of k."""
    out = np.zeros((len(sizes), lhs.shape[0], rhs.shape[1]))
    for p in range(lhs.shape[1]):
        j = _group_of(p, sizes)
        if j is not None:
            out[j] += np.outer(lhs[:, p], rhs[p])
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ragged_dot_matches_loops_on_random_inputs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    lhs = rng.integers(-5, 6, (2, 6, 3)).astype(np.float32)
    rhs = rng.integers(-5, 6, (3, 2, 3, 2)).astype(np.float32)
    sizes = rng.integers(0, 3, (2, 3)).astype(np.int64)  # sums at most 6: empty groups, rows past the sum
    numbers = RaggedDotDimensionNumbers(DotDimensionNumbers((2,), (2,), (0,), (1,)), (1,), (0,))
    want = _ragged_non_contracting_loops(lhs, rhs, sizes)
    m2 = rng.integers(-5, 6, (3, 7)).astype(np.float32)
    r2 = rng.integers(-5, 6, (7, 2)).astype(np.float32)
    s2 = rng.integers(0, 3, (3,)).astype(np.int32)
    numbers2 = ((((1,), (0,)), ((), ())), (1,), ())
    want2 = _ragged_contracting_loops(m2, r2, s2)
    for backend in BACKENDS:
        got = run_op(backend, "RaggedDot", lhs, rhs, sizes, ragged_dot_dimension_numbers=numbers)
        np.testing.assert_array_equal(got, want, err_msg=backend)  # small integers: exact in f32
        got2 = run_op(backend, "RaggedDot", m2, r2, s2, ragged_dot_dimension_numbers=numbers2)
        np.testing.assert_array_equal(got2, want2, err_msg=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ragged_dot_by_hand_every_mode(backend: str) -> None:
    lhs = np.arange(1, 9, dtype=np.float32).reshape(2, 4)
    # non-contracting (ragged m = 2 rows): sizes [0, 1] -> row 0 in group 1, row 1 past the sum
    rhs = np.stack([np.ones((4, 1)), 2 * np.ones((4, 1))]).astype(np.float32)
    got = run_op(backend, "RaggedDot", lhs, rhs, np.array([0, 1], np.int32),
                 ragged_dot_dimension_numbers=((((1,), (1,)), ((), ())), (0,), (0,)))
    np.testing.assert_array_equal(got, [[20], [0]])  # 2 * (1+2+3+4)
    # contracting (ragged k = 4): sizes [3, 1] -> group 0 sums k < 3, group 1 sums k = 3
    got = run_op(backend, "RaggedDot", lhs, np.ones((4, 1), np.float32), np.array([3, 1], np.int32),
                 ragged_dot_dimension_numbers=((((1,), (0,)), ((), ())), (1,), ()))
    np.testing.assert_array_equal(got, [[[6], [18]], [[4], [8]]])
    # batch: the groups do not change anything
    got = run_op(backend, "RaggedDot", lhs.reshape(2, 1, 4), np.ones((2, 4, 1), np.float32), np.array([1], np.int32),
                 ragged_dot_dimension_numbers=((((2,), (1,)), ((0,), (0,))), (0,), ()))
    np.testing.assert_array_equal(got, [[[10]], [[26]]])


def test_ragged_dimension_numbers_forms_and_malformed_ones() -> None:
    lhs, rhs, sizes = np.ones((2, 2), np.float32), np.ones((1, 2, 2), np.float32), np.array([2], np.int32)
    dot = (((1,), (1,)), ((), ()))
    for form in (lax.RaggedDotDimensionNumbers(dot, (0,), (0,)),
                 {"dot_dimension_numbers": dot, "lhs_ragged_dimensions": [0], "rhs_group_dimensions": [0]},
                 RaggedDotDimensionNumbers(DotDimensionNumbers((1,), (1,)), (0,), (0,))):
        comp = op_computation("RaggedDot", lhs, rhs, sizes, ragged_dot_dimension_numbers=form)
        assert comp.root_instruction.shape.dimensions() == (2, 2)
    for bad in ("nonsense", None, (dot, "x", ()), (dot, (0,)), {"lhs_ragged_dimensions": [0]},
                {"dot_dimension_numbers": dot, "ragged": [0]}, (dot, (0.5,), (0,)), ((1, 2), (0,), (0,))):
        with pytest.raises(OpError) as e:
            op_computation("RaggedDot", lhs, rhs, sizes, ragged_dot_dimension_numbers=bad)
        assert e.value.op == "RaggedDot"
    with pytest.raises(OpError) as e:
        op_computation("RaggedDot", lhs, rhs, np.array([[2]], np.int32), ragged_dot_dimension_numbers=(dot, (0,), (0,)))
    assert (e.value.constraint, e.value.arg) == ("C9", "group_sizes")


# -- RaggedDot -----------------------------------------------------------------------------------------
RAGGED = {"ragged_dot_dimension_numbers": [[[[1], [1]], [[], []]], [0], [0]]}


def test_ragged_negative_size_is_clamped_or_signed_sums_and_nothing_else() -> None:
    # rows 1, 2, 3; rhs groups 1, 10, 100; sizes [2, -1, 1]. Clamped (the reference): groups [0,2), [2,2), [2,3):
    # [1, 2, 300]. Signed sums 2, 1, 2 (jax): groups [0,2), [2,1) empty, [1,2): [1, 2 + 200, 0]
    inputs = {"lhs": np.float32([[1], [2], [3]]), "rhs": np.float32([[[1]], [[10]], [[100]]]),
              "group_sizes": np.int32([2, -1, 1])}
    allowed = allowed_table("RaggedDot", inputs, RAGGED)["group_sizes_out_of_range"]
    assert allowed.outcomes["signed_cumulative_sums"].tolist() == [[1], [202], [0]]
    case = golden_case("RaggedDot", inputs, np.float32([[1], [2], [300]]), RAGGED, tag="group_sizes_out_of_range")
    jax = run_case(case, get_backend("jax"))
    assert jax.status == IMPL_DEFINED and "chose 'signed_cumulative_sums'" in jax.message
    assert run_case(case, get_backend("jax"), profile="xla").status == PASSED
    wrong = run_case(case, mutant_backend("ragged_dot_negative_size_as_abs"))  # sizes [2, 1, 1]: row 2 x 10 = 30
    assert wrong.status == FAILED and "30" in wrong.message


def test_ragged_out_of_range_mask_covers_only_the_batches_with_bad_sizes() -> None:
    # batch 0 sizes [1, 1] (in range), batch 1 sizes [3, -1] (negative): only batch 1's rows may differ
    lhs = np.ones((2, 2, 1), np.float32)
    rhs = np.ones((2, 2, 1, 1), np.float32)
    inputs = {"lhs": lhs, "rhs": rhs, "group_sizes": np.int32([[1, 1], [3, -1]])}
    attrs = {"ragged_dot_dimension_numbers": [[[[2], [2]], [[0], [1]]], [1], [0]]}
    mask = allowed_table("RaggedDot", inputs, attrs)["group_sizes_out_of_range"].mask
    assert np.asarray(mask)[..., 0].tolist() == [[False, False], [True, True]]
