"""Implementation-defined outcomes: the spec schema, the registered functions, the two profiles."""

from __future__ import annotations

import dataclasses
import textwrap

import numpy as np
import pytest

import specs
from backend.completeness import load_checked
from conformance.cases import GOLDEN, Case
from conformance.generate import cases_for
from conformance.outcomes import allowed_outcomes
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case, run_cases
from specs.loader import SpecError, load_file
from tests.support.mutant_backends import MUTANTS


def _mutant(name: str):
    return next(m for m in MUTANTS if m.name == name).backend()


def _golden(op: str, name: str) -> Case:
    return next(c for c in cases_for(specs.get(op)) if c.kind == GOLDEN and (c.id + "/").startswith(f"{op}/golden/{name}/"))


def _case(op: str, inputs: dict, expected, attrs: dict | None = None, tag: str | None = None) -> Case:
    return Case(id=f"{op}/golden/test", op=op, kind=GOLDEN, inputs=inputs, attrs=attrs or {}, expected=expected,
                implementation_defined=tag)


# -- the two profiles ---------------------------------------------------------------------------
def test_allowed_alternative_is_impl_defined_under_spec_and_failed_under_xla() -> None:
    case = _case("Div", {"lhs": np.array([7, -7, 6], np.int32), "rhs": np.array([0, 0, 3], np.int32)},
                 np.array([-1, -1, 2], np.int32), tag="division_by_zero")
    backend = _mutant("div_by_zero_zero")
    spec = run_case(case, backend)
    assert spec.status == IMPL_DEFINED
    assert "division_by_zero: chose 'zero'" in spec.message and "2 element(s)" in spec.message
    assert run_case(case, backend, profile="xla").status == FAILED


def test_value_outside_the_allowed_set_fails_under_both_profiles() -> None:
    # s32 7 / 0: all ones (-1, XLA) or 0 (ARM) are allowed; 7 (the dividend) is neither
    from tests.support.cases import FunctionBackend
    case = _case("Div", {"lhs": np.array([7, 6], np.int32), "rhs": np.array([0, 3], np.int32)},
                 np.array([-1, 2], np.int32), tag="division_by_zero")
    backend = FunctionBackend("div_by_zero_dividend", lambda lhs, rhs: np.where(rhs == 0, lhs, lhs // np.where(rhs == 0, 1, rhs)))
    for profile in ("spec", "xla"):
        result = run_case(case, backend, profile=profile)
        assert result.status == FAILED, profile
        assert "division_by_zero" in result.message and "got np.int32(7)" in result.message


def test_out_of_range_float_to_int_takes_any_value_under_spec_only() -> None:
    # float -> s8 of 300.0 and NaN: StableHLO leaves the result TBD and IREE's LLVM code gives a CPU-dependent
    # value (poison), so wrapping (300 -> 44) is allowed under spec; XLA saturates (127, NaN -> 0)
    case = _case("ConvertElementType", {"operand": np.array([300.0, np.nan, 1.5], np.float32)},
                 np.array([127, 0, 1], np.int8), attrs={"new_element_type": "s8"})
    backend = _mutant("convert_float_to_int_wraps")
    spec = run_case(case, backend)
    assert spec.status == IMPL_DEFINED and "float_to_int: chose 'any_value'" in spec.message
    assert run_case(case, backend, profile="xla").status == FAILED
    # in range, the conversion truncates toward zero under every profile: 1.5 -> 2 fails
    from tests.support.cases import FunctionBackend
    rounding = FunctionBackend("convert_rounds", lambda x: np.int8([127, 0, 2]))
    assert run_case(case, rounding).status == FAILED


def test_golden_tag_excuses_only_its_own_entry() -> None:
    # Max(NaN, 1) with the "number" outcome is allowed by entry 'nan', but not in an example tagged 'signed_zero'
    inputs = {"lhs": np.array([np.nan, 2.0], np.float32), "rhs": np.array([1.0, 3.0], np.float32)}
    expected = np.array([np.nan, 3.0], np.float32)
    backend = _mutant("max_ignores_nan")
    assert run_case(_case("Max", inputs, expected, tag="nan"), backend).status == IMPL_DEFINED
    assert run_case(_case("Max", inputs, expected, tag="signed_zero"), backend).status == FAILED
    assert run_case(_case("Max", inputs, expected), backend).status == IMPL_DEFINED  # untagged: any entry


def test_elements_outside_the_mask_are_never_excused() -> None:
    # a correct division by zero does not excuse a wrong quotient elsewhere in the same golden case
    case = _case("Div", {"lhs": np.array([7, 9], np.int32), "rhs": np.array([0, 3], np.int32)},
                 np.array([-1, 4], np.int32), tag="division_by_zero")
    from backend.backends import get_backend
    result = run_case(case, get_backend("jax"))
    assert result.status == FAILED and "got np.int32(3), expected np.int32(4)" in result.message


def test_xla_profile_accepts_xla_outcome_where_the_reference_departs_from_it() -> None:
    # Logistic(-100) in f8e4m3fn (no infinity): the reference gives 0, XLA NaN (entry no_infinity_overflow)
    import ml_dtypes
    case = _case("Logistic", {"operand": np.array([-100.0, 0.0], ml_dtypes.float8_e4m3fn)},
                 np.array([0.0, 0.5], ml_dtypes.float8_e4m3fn))
    from backend.backends import get_backend
    jax_backend = get_backend("jax")
    assert run_case(case, jax_backend, profile="xla").status == PASSED
    spec = run_case(case, jax_backend, profile="spec")
    assert spec.status == IMPL_DEFINED and "no_infinity_overflow: chose 'nan'" in spec.message


def test_unknown_profile_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown profile"):
        run_cases([], None, profile="lenient")


def test_clamp_min_above_max_is_defined_not_implementation_defined() -> None:
    spec = specs.get("Clamp")
    assert "min_above_max" not in spec.implementation_defined
    result = run_case(_golden("Clamp", "min_above_max"), _mutant("clamp_min_above_max"))
    assert result.status == FAILED and "got np.int32(5), expected np.int32(2)" in result.message


def test_integer_add_scatter_with_duplicates_is_exact() -> None:
    cases = [c for c in cases_for(specs.get("Scatter")) if c.kind == GOLDEN]
    results = run_cases(cases, _mutant("scatter_add_keeps_last"))
    assert any(r.status == FAILED for r in results)
    assert not any(r.status == IMPL_DEFINED for r in results)


# -- registered functions agree with their specs --------------------------------------------------
def _param_forms(cases) -> list:
    """Every golden and generated case, operand form param only (a constant operand gives the same table):
    an entry's outcomes can depend on the element type, the combiner and the values (samples of the first
    cases missed Reciprocal's complex entries and Scatter's integer Sub with colliding indices)."""
    return [c for c in cases if c.kind != "error" and not c.id.endswith("/const")]


@pytest.mark.parametrize("op", [n for n, s in specs.load_all().items()
                                if any(e.alternatives for e in s.implementation_defined.values())])
def test_registered_outcomes_match_the_spec(op: str) -> None:
    from conformance.build import build_case
    spec = specs.get(op)
    seen: set[str] = set()
    for case in _param_forms(cases_for(spec)):
        comp, args = build_case(spec, case.inputs, case.attrs)
        if len(comp.parameters) > len(args):
            continue
        if case.device_count > 1:  # a collective: every device's table, its collectives meeting as in execute
            from backend.reference.allowed import root_outcomes_per_device
            from conformance.build import device_arguments
            from conformance.outcomes import check_registered
            tables = root_outcomes_per_device(comp, device_arguments(args, case.device_count), *case.devices)
            for table in tables:
                check_registered(spec, table)
        else:
            tables = [allowed_outcomes(spec, comp, args)]  # raises when ids or outcome names disagree with the spec
        for key, allowed in (item for table in tables for item in table.items()):
            assert all(np.asarray(m).dtype == np.bool_ for m in (allowed.mask if isinstance(allowed.mask, tuple)
                                                                 else [allowed.mask])), (op, key)
            seen.add(key)
    assert seen <= set(spec.implementation_defined)


def test_every_registered_function_has_an_open_entry() -> None:
    from backend.reference import IMPLEMENTATION_DEFINED
    for name in IMPLEMENTATION_DEFINED.names():
        spec = specs.get(name)
        assert any(e.alternatives for e in spec.implementation_defined.values()), name


# -- the schema ---------------------------------------------------------------------------------
_BASE = """\
op: Neg
family: unary
summary: s
shape_rule: unary_elementwise
signatures: ["Neg(operand)"]
args:
  operand: {kind: operand, element: T}
element_types: {T: [int]}
type_constraint: C1
constraints: {C1: "T is numeric"}
examples: []
errors:
  - {name: pred, violates: C1, inputs: {operand: "pred[2]"}}
tolerance: exact
"""


def _load(tmp_path, impl: str):
    path = tmp_path / "neg.yaml"
    path.write_text(_BASE + "implementation_defined:\n" + textwrap.indent(textwrap.dedent(impl), "  "))
    return load_file(path)


def test_loader_accepts_a_well_formed_entry(tmp_path) -> None:
    spec = _load(tmp_path, """\
        wraparound:
          doc: "negation of INT_MIN"
          outcomes: {wrap: "INT_MIN (XLA)", saturate: "INT_MAX (some DSPs)"}
          reference: wrap
          xla: wrap
        """)
    entry = spec.implementation_defined["wraparound"]
    assert entry.alternatives == {"saturate"} and entry.xla == "wrap"


@pytest.mark.parametrize("impl, message", [
    ("wraparound: just text\n", "expected a mapping"),
    ("wraparound: {doc: d, outcomes: {wrap: w}, reference: wrap}\n", "missing required key 'xla'"),
    ("wraparound: {doc: d, outcomes: {}, reference: wrap, xla: wrap}\n", "non-empty mapping"),
    ("wraparound: {doc: d, outcomes: {wrap: w}, reference: other, xla: wrap}\n", "'other' is not one of"),
    ("wraparound: {doc: d, outcomes: {wrap: w}, reference: wrap, xla: 1}\n", "'1' is not one of"),
    ("wraparound: {doc: d, outcomes: {wrap: 3}, reference: wrap, xla: wrap}\n", "non-empty description"),
    ("wraparound: {doc: true, outcomes: {wrap: w}, reference: wrap, xla: wrap}\n", "non-empty string"),
    ("wraparound: {doc: d, outcomes: {Wrap: w}, reference: Wrap, xla: Wrap}\n", "snake_case"),
    ("wraparound: {doc: d, outcomes: {wrap: w}, reference: wrap, xla: wrap, mask: all}\n", "unknown key 'mask'"),
    ("wraparound: {doc: d, outcomes: {wrap: w}, reference: wrap, xla: wrap, xla_constant_folded: fold}\n",
     "'fold' is not one of"),
])
def test_loader_rejects_malformed_entries(tmp_path, impl: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as e:
        _load(tmp_path, impl)
    assert "neg.yaml:" in str(e.value)


def test_completeness_requires_a_function_for_entries_with_alternatives(tmp_path) -> None:
    path = tmp_path / "neg.yaml"
    path.write_text(_BASE + textwrap.dedent("""\
        implementation_defined:
          wraparound: {doc: d, outcomes: {wrap: w, saturate: s}, reference: wrap, xla: wrap}
        """))
    with pytest.raises(SpecError, match="register @implementation_defined"):
        load_checked(path)


def test_every_spec_entry_says_which_outcome_is_the_reference() -> None:
    for spec in specs.load_all().values():
        for key, entry in spec.implementation_defined.items():
            assert "reference" in entry.outcomes[entry.reference], (spec.name, key)
            assert entry.doc, (spec.name, key)


# -- reports say which profile ran ------------------------------------------------------------------
def test_reports_name_the_profile(tmp_path, capsys) -> None:
    import json

    from conformance.cli import main
    report, markdown = tmp_path / "r.json", tmp_path / "r.md"
    status = main(["run", "--backend", "jax", "--ops", "Logistic", "--kinds", "golden", "--profile", "xla",
                   "--report", str(report), "--markdown", str(markdown), "-q"])
    assert status == 0
    assert "profile xla" in capsys.readouterr().out
    assert json.loads(report.read_text())["profile"] == "xla"
    assert "profile `xla`" in markdown.read_text()


# -- outcomes judged on the whole result, comparator order, the journal -------------------------------
def test_qr_any_factors_accepts_lapack_signs_and_rejects_broken_identities() -> None:
    from backend.reference import IMPLEMENTATION_DEFINED

    a = np.array([[3.0, 1.0], [4.0, 2.0]])
    allowed = IMPLEMENTATION_DEFINED.get("QR")(None, a)["factors"]
    # Q R = A with the columns of Q negated and the rows of R negated: R's diagonal negative (LAPACK's signs)
    q = np.array([[-0.6, 0.8], [-0.8, -0.6]])
    r = np.array([[-5.0, -2.2], [0.0, -0.4]])
    holds = allowed.outcomes["any_factors"].check
    assert all(m.all() for m in holds((q, r)))
    assert not any(m.any() for m in holds((q, r + np.array([[0.0, 0.1], [0.0, 0.0]]))))  # Q R != A
    assert not any(m.any() for m in holds((2 * q, r / 2)))  # Q not orthonormal


def test_svd_any_factors_judges_a_matrix_holding_the_largest_value_without_overflow() -> None:
    """U diag(d) V^H = A is checked on A scaled by a power of two: unscaled, ||A||_F overflowed to inf (every residual
    within inf x bound: a wrong factorization passed) and U diag(d) V^H overflowed to inf - inf (a right one failed:
    fuzz seed 7 found XLA's factors of the 4x3 matrix below refused)."""
    from backend.reference import IMPLEMENTATION_DEFINED

    def holds(a: np.ndarray, u: np.ndarray, d: np.ndarray, v: np.ndarray) -> bool:
        masks = IMPLEMENTATION_DEFINED.get("SVD")(None, a)["factors"].outcomes["any_factors"].check((u, d, v))
        assert all(m.all() for m in masks) or not any(m.any() for m in masks)
        return bool(masks[0].all())

    big = np.finfo(np.float64).max
    a = np.array([[-big, 0.0], [0.0, big / 2]])
    d, flip, eye = np.array([big, big / 2]), np.diag([-1.0, 1.0]), np.eye(2)
    assert holds(a, flip, d, eye) and holds(a, eye, d, flip)  # either sign of the first singular vectors
    assert not holds(a, flip, np.array([big, big / 4]), eye)  # not A's singular values
    assert not holds(a, np.diag([-1.0, 0.5]), d, eye)  # U not unitary
    assert not holds(a, eye, d, eye)  # U diag(d) V^H = diag(max, max / 2), not A
    b = np.array([[-20480.0, -2.2250738585072014e-308, 0.0], [1554.4701538085938, 3584.0, -big],
                  [8967.5, 656.75, 2.2250738585072014e-308], [-0.0, -5632.0, -12800.0]])
    u, s, vh = np.linalg.svd(np.ldexp(b, -1024))  # exact scaling; LAPACK's factors of the scaled matrix
    flip3 = np.diag([-1.0, 1.0, 1.0])
    assert holds(b, u, np.ldexp(s, 1024), vh.T) and holds(b, u @ np.diag([-1.0, 1, 1, 1]), np.ldexp(s, 1024), vh.T @ flip3)
    assert not holds(b, u, np.ldexp(s, 1024) * 0.999, vh.T)


def test_a_comparator_over_nan_is_not_a_strict_weak_order() -> None:
    from backend.reference.higher_order import _strict_weak_order

    x = np.array([1.0, np.nan, 2.0])
    with np.errstate(invalid="ignore"):
        assert not _strict_weak_order((x[:, None] < x[None, :])[None])
    y = np.array([1.0, 0.0, 1.0])
    assert _strict_weak_order((y[:, None] < y[None, :])[None])


def test_the_journal_keeps_the_profile_and_the_chosen_outcomes() -> None:
    from conformance.journal import result_from_record, result_record
    from conformance.runner import IMPL_DEFINED, Result

    case = _golden("Clamp", "doc_scalar_bounds")
    record = result_record(Result(case, IMPL_DEFINED, "m", chosen={"values": {"any_draw": 3}}), "jax", "xla")
    assert record["profile"] == "xla" and record["chosen"] == {"values": {"any_draw": 3}}
    assert result_from_record(case, record).chosen == {"values": {"any_draw": 3}}


def test_the_xla_profile_takes_the_constant_folders_outcome_for_constant_operands() -> None:
    """Asinh(-0): -0 (IEEE, XLA's compiled code), +0 (XLA's constant folder). Under profile xla a constant
    operand's case must give +0 and a parameter's -0; under spec either passes."""
    from conformance.cases import CONSTANTS, PARAMETERS

    class PositiveZero:
        name = "positive_zero"

        def supports(self, computation):
            return None

        def execute(self, computation, arguments):
            return [np.float32([0.0, 1.0])]
    case = Case(id="Asinh/golden/test", op="Asinh", kind=GOLDEN, inputs={"operand": np.float32([-0.0, 1.1752012])},
                attrs={}, expected=np.float32([-0.0, 1.0]), implementation_defined="constant_folded_zero_sign")
    entry = specs.get("Asinh").implementation_defined["constant_folded_zero_sign"]
    assert entry.xla_outcome(constant_operands=True) == "positive_zero" and entry.xla_outcome(False) == "negative_zero"
    const = dataclasses.replace(case, operand_form=CONSTANTS)
    param = dataclasses.replace(case, operand_form=PARAMETERS)
    assert run_case(const, PositiveZero(), profile="xla").status == PASSED  # XLA's own outcome there
    failed = run_case(param, PositiveZero(), profile="xla")
    assert failed.status == FAILED and "['negative_zero']" in failed.message
    assert run_case(param, PositiveZero(), profile="spec").status == IMPL_DEFINED
