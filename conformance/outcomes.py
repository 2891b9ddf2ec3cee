"""Judging results that differ from the expected value, under a profile.

Profiles:

- ``spec`` (default): the documents' semantics. Where a spec entry ``implementation_defined``
  leaves a choice, an element may take any of the entry's allowed outcomes; a result that uses
  another outcome than the reference's is ``impl-defined``, naming the outcome chosen.
- ``xla``: XLA's observed behaviour is required everywhere. Elements may differ from the
  expected (reference) value only where the reference knowingly departs from XLA (an entry whose
  ``xla`` outcome is not its ``reference`` one), and there only with XLA's outcome (its constant folder's,
  ``xla_constant_folded``, for a case with constant operands when the entry names one).

Which elements an entry covers and what its other outcomes give come from the reference family
module's ``@implementation_defined`` function (see backend/reference/allowed.py). A golden example
tagged with an entry is excused by that entry only.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

import numpy as np

from conformance.cases import CONSTANTS
from conformance.tolerance import describe_mismatch, mismatch_mask

SPEC, XLA = "spec", "xla"
PROFILES = (SPEC, XLA)


@dataclasses.dataclass
class Mismatch:
    """One output whose value differs from the expected one (``mask``: the differing elements)."""

    index: int
    actual: np.ndarray
    expected: np.ndarray
    bound: Any
    mask: np.ndarray
    outputs: tuple[np.ndarray, ...] = ()  # the whole actual result, for outcomes judged on all outputs


@dataclasses.dataclass
class Verdict:
    excused: bool  # every differing element takes an allowed outcome
    chosen: dict[str, Counter]  # id -> {outcome name: elements}
    message: str
    repeat: bool = False  # an outcome chosen is Deterministic: the same operands must give the same result again


def check_profile(profile: str) -> None:
    if profile not in PROFILES:
        raise ValueError(f"unknown profile '{profile}': expected one of {', '.join(PROFILES)}")


def allowed_outcomes(spec: Any, comp: Any, args: list[Any]) -> dict[str, Any]:
    """The registered ``{id: Allowed}`` of the computation's root op, checked against the spec."""
    from backend.reference.allowed import root_outcomes

    table = root_outcomes(comp, args)
    check_registered(spec, table)
    return table


def check_registered(spec: Any, table: dict[str, Any]) -> None:
    """A registered function must name the spec's ids and exactly their non-reference outcomes."""
    for key, allowed in table.items():
        entry = spec.implementation_defined.get(key)
        if entry is None:
            raise RuntimeError(f"{spec.name}: implementation-defined function returns '{key}', which the spec "
                               f"does not list")
        names = set(allowed.outcomes)
        if names != entry.alternatives:
            raise RuntimeError(f"{spec.name}: implementation-defined '{key}' gives outcomes {sorted(names)}, the spec "
                               f"lists {sorted(entry.alternatives)} besides the reference's '{entry.reference}'")


def _outcome_matches(outcome: Any, m: Mismatch) -> np.ndarray:
    from backend.reference.allowed import Deterministic, Holds, Within

    index, actual, expected, bound = m.index, m.actual, m.expected, m.bound
    if isinstance(outcome, Deterministic):
        return _outcome_matches(outcome.outcome, m)
    if isinstance(outcome, list):
        hit = np.zeros(actual.shape, bool)
        for one in outcome:
            hit |= _outcome_matches(one, m)
        return hit
    if isinstance(outcome, Within):
        mask = np.asarray(outcome.mask[index] if isinstance(outcome.mask, tuple) else outcome.mask, bool)
        return np.broadcast_to(mask, actual.shape) & _outcome_matches(outcome.outcome, m)
    if isinstance(outcome, Holds):
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(outcome.check(m.outputs)[index], bool), actual.shape)
    value = outcome[index] if isinstance(outcome, tuple) else outcome
    if callable(value):
        return np.broadcast_to(np.asarray(value(actual, expected), bool), actual.shape)
    value = np.broadcast_to(np.asarray(value), actual.shape).astype(actual.dtype)
    return ~mismatch_mask(actual, value, bound)


def judge(case: Any, spec: Any, comp: Any, args: list[Any], mismatches: list[Mismatch], profile: str,
          table: dict[str, Any] | None = None) -> Verdict:
    """Whether every differing element takes an outcome the profile allows, and which ones were chosen
    (``table``: the allowed outcomes, when the caller has them: one device's of a multi-device run)."""
    check_profile(profile)
    if table is not None:
        check_registered(spec, table)
    elif spec.implementation_defined:
        table = allowed_outcomes(spec, comp, args)
    else:
        table = {}
    if case.kind == "golden" and case.implementation_defined:
        table = {k: v for k, v in table.items() if k in case.implementation_defined}
    chosen: dict[str, Counter] = {}
    repeat = False
    constant = _constant_operands(case)
    for m in mismatches:
        left = m.mask.copy()
        for key, allowed in table.items():
            entry = spec.implementation_defined[key]
            covered = allowed.mask_of(m.index, m.mask.shape) & left
            if not covered.any():
                continue
            names = [entry.xla_outcome(constant)] if profile == XLA else sorted(allowed.outcomes)
            for name in names:
                if name == entry.reference or name not in allowed.outcomes:
                    continue
                hit = covered & _outcome_matches(allowed.outcomes[name], m)
                if hit.any():
                    chosen.setdefault(key, Counter())[name] += int(hit.sum())
                    repeat |= _deterministic(allowed.outcomes[name])
                    left &= ~hit
                    covered &= ~hit
        if left.any():
            return Verdict(False, chosen, _failure(spec, table, m, left, profile, constant))
    return Verdict(True, chosen, "; ".join(
        f"{key}: chose '{name}' ({spec.implementation_defined[key].outcomes[name]}) in {n} element(s)"
        for key, c in chosen.items() for name, n in c.items()), repeat)


def _deterministic(outcome: Any) -> bool:
    from backend.reference.allowed import Deterministic

    return isinstance(outcome, Deterministic)


def _constant_operands(case: Any) -> bool:
    """Whether the case's operands are constants (XLA's constant folder may then evaluate the op)."""
    return getattr(case, "operand_form", None) == CONSTANTS


def _failure(spec: Any, table: dict[str, Any], m: Mismatch, left: np.ndarray, profile: str, constant: bool) -> str:
    detail = describe_mismatch(m.actual, m.expected, left)
    inside = [k for k, a in table.items() if (a.mask_of(m.index, left.shape) & left).any()]
    note = ""
    if inside:
        allowed = {k: sorted(spec.implementation_defined[k].outcomes) if profile == SPEC
                   else [spec.implementation_defined[k].xla_outcome(constant)] for k in inside}
        note = "; outside the allowed outcomes of " + ", ".join(f"{k} {v}" for k, v in allowed.items())
    return f"output {m.index} differs beyond tolerance {m.bound or 'exact'} (profile {profile}): {detail}{note}"
