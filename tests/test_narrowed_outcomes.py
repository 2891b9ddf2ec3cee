"""Implementation-defined entries narrowed to closed sets: Zeta below the series' domain, Sort with
ties and with comparators that are no strict weak order, RaggedDot's out-of-range group sizes, Scan's
re-association (the shared Higham bound). Each allowed outcome is accepted and a wrong value rejected;
the values are worked out by hand in the comments. (``-m slow`` runs the mutants on every case.)"""

from __future__ import annotations

import numpy as np

import specs
from backend.backends import get_backend
from conformance.build import build_case
from conformance.cases import GOLDEN, Case
from conformance.outcomes import allowed_outcomes
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
from tests.support.mutant_backends import MUTANTS

nan, inf = np.nan, np.inf


def _case(op: str, inputs: dict, expected, attrs: dict | None = None, tag: str | None = None) -> Case:
    return Case(id=f"{op}/golden/test", op=op, kind=GOLDEN, inputs=inputs, attrs=attrs or {}, expected=expected,
                implementation_defined=tag)


def _mutant(name: str):
    return next(m for m in MUTANTS if m.name == name).backend()


def _table(op: str, inputs: dict, attrs: dict) -> dict:
    comp, args = build_case(specs.get(op), inputs, attrs)
    return allowed_outcomes(specs.get(op), comp, args)


# -- Zeta: x < 1 ---------------------------------------------------------------------------------------
# x = 0.5: NaN; x = -2 and x = 0 (even integers) at the pole q = -1: +inf; x = -3 (odd) at q = 0: NaN
ZETA = _case("Zeta", {"x": np.float32([0.5, -2, 0, -3]), "q": np.float32([1, -1, -1, 0])},
             np.float32([nan, inf, inf, nan]), tag="outside_series_domain")


def test_zeta_below_one_is_the_pole_rule_or_nan_and_nothing_else() -> None:
    table = _table("Zeta", ZETA.inputs, {})
    allowed = table["outside_series_domain"]
    assert set(allowed.outcomes) == {"nan"} and allowed.mask.tolist() == [True] * 4
    assert np.isnan(allowed.outcomes["nan"]).all()
    assert run_case(ZETA, get_backend("jax")).status == PASSED
    cephes = run_case(ZETA, _mutant("zeta_nan_below_one"))  # NaN at the two poles: the other outcome
    assert cephes.status == IMPL_DEFINED and "chose 'nan'" in cephes.message and "2 element(s)" in cephes.message
    assert run_case(ZETA, _mutant("zeta_nan_below_one"), profile="xla").status == FAILED
    continued = run_case(ZETA, _mutant("zeta_continues_below_one"))  # zeta(0.5, 1) as 1/2 - 1 = -0.5
    assert continued.status == FAILED and "-0.5" in continued.message


# -- Sort ----------------------------------------------------------------------------------------------
def test_unstable_ties_move_every_operand_by_one_permutation() -> None:
    # keys [1, 0, 1, 0], a [0, 1, 2, 3], b [10, 11, 12, 13]: stable: keys [0, 0, 1, 1], a [1, 3, 0, 2], b [11, 13, 10, 12]
    inputs = {"operands": [np.int32([1, 0, 1, 0]), np.int32([0, 1, 2, 3]), np.int32([10, 11, 12, 13])]}
    attrs = {"comparator": {"op": "Lt", "compare": 3}}
    check = _table("Sort", inputs, attrs)["unstable_ties"].outcomes["any_order_of_ties"].check
    keys = np.int32([0, 0, 1, 1])
    together = (keys, np.int32([3, 1, 2, 0]), np.int32([13, 11, 12, 10]))  # both runs reversed, pairs kept
    assert all(m.all() for m in check(together))
    apart = (keys, np.int32([1, 3, 0, 2]), np.int32([13, 11, 10, 12]))  # b's first run reversed, a's not
    assert [m.tolist() for m in check(apart)] == [[False, False, True, True]] * 3
    expected = tuple(np.int32(v) for v in ([0, 0, 1, 1], [1, 3, 0, 2], [11, 13, 10, 12]))
    result = run_case(_case("Sort", inputs, expected, attrs, tag="unstable_ties"), _mutant("sort_operands_permuted_apart"))
    assert result.status == FAILED and "unstable_ties" in result.message


def test_no_strict_weak_order_allows_only_permutations_of_the_bad_rows() -> None:
    # row 0 holds NaN (Lt is no strict weak order there), row 1 does not (its order is the usual one)
    keys = np.float32([[3, nan, 1, 2, 0], [4, 3, 2, 1, 0]])
    pos = np.int32([[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]])
    inputs, attrs = {"operands": [keys, pos]}, {"comparator": {"op": "Lt", "compare": 2}}
    allowed = _table("Sort", inputs, attrs)["not_a_strict_weak_order"]
    assert set(allowed.outcomes) == {"permuted_rows"}
    assert allowed.mask_of(0, (2, 5)).tolist() == [[True] * 5, [False] * 5]
    check = allowed.outcomes["permuted_rows"].check
    sorted_row = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]
    xla = (np.float32([[nan, 0, 1, 3, 2], [0, 1, 2, 3, 4]]), np.int32([[1, 4, 2, 0, 3], sorted_row[1]]))
    assert all(m[0].all() for m in check(xla))  # XLA on CPU's order: a permutation of the row's pairs
    swapped = (xla[0], np.int32([[1, 4, 2, 3, 0], sorted_row[1]]))  # (3, 3) and (2, 0): pairs broken
    assert not any(m[0].any() for m in check(swapped))
    duplicated = (np.float32([[nan, 0, 1, 3, 3], [0, 1, 2, 3, 4]]), xla[1])  # 2 lost, 3 twice
    assert not any(m[0].any() for m in check(duplicated))
    # the reference's order (Python's sort): [3, NaN] and then 0, 1, 2 inserted after NaN
    expected = (np.float32([[3, nan, 0, 1, 2], [0, 1, 2, 3, 4]]), np.int32([[0, 1, 4, 2, 3], sorted_row[1]]))
    result = run_case(_case("Sort", inputs, expected, attrs, tag="not_a_strict_weak_order"), get_backend("jax"))
    assert result.status == IMPL_DEFINED and "chose 'permuted_rows'" in result.message


# -- RaggedDot -----------------------------------------------------------------------------------------
RAGGED = {"ragged_dot_dimension_numbers": [[[[1], [1]], [[], []]], [0], [0]]}


def test_ragged_negative_size_is_clamped_or_signed_sums_and_nothing_else() -> None:
    # rows 1, 2, 3; rhs groups 1, 10, 100; sizes [2, -1, 1]. Clamped (the reference): groups [0,2), [2,2), [2,3):
    # [1, 2, 300]. Signed sums 2, 1, 2 (jax): groups [0,2), [2,1) empty, [1,2): [1, 2 + 200, 0]
    inputs = {"lhs": np.float32([[1], [2], [3]]), "rhs": np.float32([[[1]], [[10]], [[100]]]),
              "group_sizes": np.int32([2, -1, 1])}
    allowed = _table("RaggedDot", inputs, RAGGED)["group_sizes_out_of_range"]
    assert allowed.outcomes["signed_cumulative_sums"].tolist() == [[1], [202], [0]]
    case = _case("RaggedDot", inputs, np.float32([[1], [2], [300]]), RAGGED, tag="group_sizes_out_of_range")
    jax = run_case(case, get_backend("jax"))
    assert jax.status == IMPL_DEFINED and "chose 'signed_cumulative_sums'" in jax.message
    assert run_case(case, get_backend("jax"), profile="xla").status == PASSED
    wrong = run_case(case, _mutant("ragged_dot_negative_size_as_abs"))  # sizes [2, 1, 1]: row 2 x 10 = 30
    assert wrong.status == FAILED and "30" in wrong.message


def test_ragged_out_of_range_mask_covers_only_the_batches_with_bad_sizes() -> None:
    # batch 0 sizes [1, 1] (in range), batch 1 sizes [3, -1] (negative): only batch 1's rows may differ
    lhs = np.ones((2, 2, 1), np.float32)
    rhs = np.ones((2, 2, 1, 1), np.float32)
    inputs = {"lhs": lhs, "rhs": rhs, "group_sizes": np.int32([[1, 1], [3, -1]])}
    attrs = {"ragged_dot_dimension_numbers": [[[[2], [2]], [[0], [1]]], [1], [0]]}
    mask = _table("RaggedDot", inputs, attrs)["group_sizes_out_of_range"].mask
    assert np.asarray(mask)[..., 0].tolist() == [[False, False], [True, True]]


# -- Scan ----------------------------------------------------------------------------------------------
SCAN_INPUTS = {"inputs": [np.float32([1e8, 1, -1e8, 1])], "inits": [np.float32(0)]}
SCAN_ATTRS = {"to_apply": {"op": "Add", "scan": "inclusive"}, "scan_dimension": 0, "is_associative": True}


def test_scan_reassociation_is_bounded_by_higham() -> None:
    # exact prefix sums [1e8, 1e8 + 1, 1, 2] of n = 2..5 values (init 0 included); u = 2^-24.
    # Bound (n - 1) u sum|x| (1 + 4u): step 1: 2 u (1e8 + 1) = 11.9; step 2: 3 u (2e8 + 1) = 35.8;
    # step 3 and the carry: 4 u (2e8 + 2) = 47.7 (so 49 is allowed there, 50 is not)
    allowed = _table("Scan", SCAN_INPUTS, SCAN_ATTRS)["reassociation"]
    assert allowed.mask[0].tolist() == [False, True, True, True]  # step 0 combines 2 values: one association
    accepts = allowed.outcomes["any_association"][0]
    expected = np.float32([1e8, 1e8, 0, 1])  # in order: 1e8 + 1 rounds to 1e8 (spacing 8)
    assert accepts(np.float32([1e8, 1e8, 35, 2]), expected)[1:].tolist() == [True, True, True]
    assert accepts(np.float32([1e8, 1e8 + 16, 37, 50]), expected)[1:].tolist() == [False, False, False]
    carry = allowed.outcomes["any_association"][1]  # the final carry: 5 values, bound 47.7 around 2
    assert carry(np.float32(49), np.float32(1)) and not carry(np.float32(50), np.float32(1))
    case = _case("Scan", SCAN_INPUTS, (expected, np.float32(1)), SCAN_ATTRS, tag="reassociation")
    assert run_case(case, get_backend("jax")).status == PASSED
    tree = run_case(case, _mutant("scan_associative_tree"))  # (1e8 + 1) + (-1e8 + 1) = 1e8 - 1e8 = 0 at step 3
    assert tree.status == IMPL_DEFINED and "chose 'any_association'" in tree.message
    assert run_case(case, _mutant("scan_associative_tree"), profile="xla").status == FAILED


def test_scan_without_the_associative_flag_runs_in_order() -> None:
    assert _table("Scan", SCAN_INPUTS, {**SCAN_ATTRS, "is_associative": None}) == {}


# -- complex Div and Pow: the sign of a zero part ------------------------------------------------------
# (1+i)/(1+i) = 1 + (1*1 - 1*1)/2 i = 1 + 0i; (2+0i)/(1+0i) = 2 + 0i; i ** 2 = -1 + 0i (the exact results
# have no sign of zero to prefer; XLA's rounding gives +0 in the quotients)
DIV_ZERO_PARTS = _case("Div", {"lhs": np.complex64([1 + 1j, 2]), "rhs": np.complex64([1 + 1j, 1])},
                       np.complex64([1, 2]), tag="complex_zero_sign")


def test_complex_zero_parts_may_take_either_sign_and_nothing_else() -> None:
    table = _table("Div", DIV_ZERO_PARTS.inputs, {})
    assert table["complex_zero_sign"].mask.tolist() == [True, True]
    assert run_case(DIV_ZERO_PARTS, get_backend("jax")).status == PASSED
    flipped = run_case(DIV_ZERO_PARTS, _mutant("complex_div_zero_parts_flipped"))
    assert flipped.status == IMPL_DEFINED and "chose 'either_sign'" in flipped.message
    assert run_case(DIV_ZERO_PARTS, _mutant("complex_div_zero_parts_flipped"), profile="xla").status == FAILED
    # a conjugated quotient flips the zero signs too, but (3+4i)/(1+2i) = 2.2 - 0.4i becomes 2.2 + 0.4i
    nonzero = _case("Div", {"lhs": np.complex64([1 + 1j, 3 + 4j]), "rhs": np.complex64([1 + 1j, 1 + 2j])},
                    np.complex64([1, 2.2 - 0.4j]))
    assert run_case(nonzero, _mutant("complex_div_conjugated")).status == FAILED
    # real quotients keep their zero signs: -0 / 2 = -0 has no entry to excuse +0
    assert "complex_zero_sign" not in _table("Div", {"lhs": np.float32([-0.0]), "rhs": np.float32([2])}, {})


def test_complex_pow_zero_part_mask_covers_only_zero_parts_of_finite_results() -> None:
    # i**2 = -1 + 0i, 2**3 = 8 + 0i and (1+i)**2 = 0 + 2i have a zero part; inf**2 has no finite result
    inputs = {"lhs": np.complex64([1j, 2, 1 + 1j, np.inf]), "rhs": np.complex64([2, 3, 2, 2])}
    assert _table("Pow", inputs, {})["complex_zero_sign"].mask.tolist() == [True, True, True, False]
    # the golden i**2 = -1 + 0i, answered -1 - 0i (IREE's value): allowed, and reported as the other outcome
    golden = _case("Pow", {"lhs": np.complex64([1j]), "rhs": np.complex64([2])}, np.complex64([-1]))

    class NegativeZeroImaginary:
        name = "negative_zero_imaginary"

        def supports(self, computation):
            return None

        def execute(self, computation, arguments):
            return [np.complex64([complex(-1, -0.0)])]
    result = run_case(golden, NegativeZeroImaginary())
    assert result.status == IMPL_DEFINED and "complex_zero_sign" in result.message


# -- ReduceWindow: an init value that is no identity, over padding ---------------------------------------
def test_padding_cells_may_hold_the_init_value_and_nothing_else() -> None:
    # Add from 10, window 3, stride 2, padding (1, 1) over [1, 2, 3, 4, 5]: windows [pad, 1, 2], [2, 3, 4],
    # [4, 5, pad]; the init once: 13, 19, 19; padding cells holding 10 too: 23, 19, 29
    inputs = {"operands": [np.int32([1, 2, 3, 4, 5])], "init_values": [np.int32(10)]}
    attrs = {"computation": {"op": "Add"}, "window_dimensions": [3], "window_strides": [2], "padding": [[1, 1]]}
    allowed = _table("ReduceWindow", inputs, attrs)["non_identity_init"]
    assert allowed.mask.tolist() == [True, False, True]
    assert allowed.outcomes["padded_with_init"].tolist() == [23, 19, 29]
    case = _case("ReduceWindow", inputs, np.int32([13, 19, 19]), attrs, tag="non_identity_init")

    class Answers:
        name = "answers"

        def __init__(self, value):
            self.value = value

        def supports(self, computation):
            return None

        def execute(self, computation, arguments):
            return [np.int32(self.value)]
    stablehlo = run_case(case, Answers([23, 19, 29]))
    assert stablehlo.status == IMPL_DEFINED and "padded_with_init" in stablehlo.message
    assert run_case(case, Answers([23, 19, 29]), profile="xla").status == FAILED
    assert run_case(case, Answers([23, 29, 29])).status == FAILED  # the middle window touches no padding
    assert run_case(case, get_backend("jax")).status == PASSED
