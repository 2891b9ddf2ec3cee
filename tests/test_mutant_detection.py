"""The conformance suite detects every mutant (tests/support/mutant_backends.py): a plausible value bug in one op.

Every mutant must be detected (a case of its op FAILED) under profile ``xla``, and under profile
``spec`` unless its bug is one of the op's allowed implementation-defined outcomes, in which case
the suite must report it ``impl-defined`` and fail nothing. By default a sample runs on the golden
cases and a few generated ones; ``-m slow`` runs every mutant on every case of its op.
"""

from __future__ import annotations

import functools

import pytest

import specs
from conformance.cases import ERROR, GENERATED, GOLDEN
from conformance.generate import cases_for
from conformance.runner import FAILED, IMPL_DEFINED, run_cases
from tests.support.mutant_backends import MUTANTS, Mutant

SAMPLE = ("clamp_min_above_max", "scatter_add_keeps_last", "convert_float_to_int_wraps", "div_by_zero_zero",
          "max_ignores_nan", "rem_divisor_sign", "srl_arithmetic", "round_half_even", "abs_int_min_saturates",
          "iota_from_one")
GENERATED_IN_SAMPLE = 2


@functools.cache
def _cases(op: str, sample: bool) -> tuple:
    cases = [c for c in cases_for(specs.get(op)) if c.kind != ERROR]
    if sample:
        cases = [c for c in cases if c.kind == GOLDEN] + [c for c in cases if c.kind == GENERATED][:GENERATED_IN_SAMPLE]
    return tuple(cases)


def _check(m: Mutant, sample: bool) -> None:
    """Detected under xla; under spec too, unless the bug is an allowed outcome (then reported impl-defined).

    In the sample a spec failure stands for the xla one: an element outside every allowed outcome is
    outside XLA's too, so only mutants the spec allows run twice.
    """
    backend = m.backend()
    cases = _cases(m.op, sample)
    spec = run_cases(cases, backend, profile="spec")
    failed = [r for r in spec if r.status == FAILED]
    if m.allowed_by_spec is None:
        assert failed, f"{m.name} ({m.bug}) not detected under profile spec"
    else:
        assert not failed, f"{m.name} is an allowed outcome ({m.allowed_by_spec}) but failed: {failed[0].message}"
        outcome = m.allowed_by_spec.split(":")[0]
        assert any(r.status == IMPL_DEFINED and outcome in r.message for r in spec), \
            f"{m.name}: no case reports the implementation-defined outcome {m.allowed_by_spec}"
    if m.allowed_by_spec is not None or not sample:
        xla = run_cases(cases, backend, profile="xla")
        assert any(r.status == FAILED for r in xla), f"{m.name} ({m.bug}) not detected under profile xla"


def test_mutant_names_unique_and_enough() -> None:
    names = [m.name for m in MUTANTS]
    assert len(names) == len(set(names))
    assert len(MUTANTS) >= 40
    assert set(SAMPLE) <= set(names)
    for m in MUTANTS:
        assert m.op in specs.load_all(), m.op


@pytest.mark.parametrize("name", SAMPLE)
def test_sampled_mutant_detected(name: str) -> None:
    _check(next(m for m in MUTANTS if m.name == name), sample=True)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_every_mutant_detected(mutant: Mutant) -> None:
    _check(mutant, sample=False)
