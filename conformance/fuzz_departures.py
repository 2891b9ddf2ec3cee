"""Differences from the reference that a differential search keeps finding and that are documented departures of
a backend (``docs/fuzz_findings.md``, one section each): the search reports a disagreement in one of them as a
``known departure``, not as a disagreement, so a search exits 0 when it finds nothing else.

Each departure names the ops and backends it concerns and the operands it concerns, as a predicate on the op's
operands and attributes as the op ran alone (narrow, so that another difference in the same op stays a finding).
``tests/test_fuzz.py`` keeps a program of each in ``XLA_DEPARTURES``, found again and matched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

FINDINGS_PAGE = "docs/fuzz_findings.md"


@dataclasses.dataclass(frozen=True)
class Departure:
    name: str  # the section of docs/fuzz_findings.md (its heading's anchor)
    ops: frozenset[str]
    backends: frozenset[str]
    applies: Callable[[dict[str, Any], dict[str, Any]], bool]  # (operands, attributes) -> in the departure's domain
    summary: str


def arrays(value: Any) -> Iterator[np.ndarray]:
    """The arrays of an operand value (a tuple or list of them for a variadic operand)."""
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from arrays(v)
    elif value is not None:
        yield np.asarray(value)


def _numeric(a: np.ndarray) -> np.ndarray:
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64) if a.dtype.kind in "fcV" or \
        a.dtype.name.startswith(("float", "bfloat")) else a


def holds_non_finite(*values: Any) -> bool:
    """Whether any of the values holds an infinity or a NaN (in a part of a complex number)."""
    for a in (x for v in values for x in arrays(v)):
        if a.dtype.kind in "biu":
            continue
        with np.errstate(all="ignore"):
            if not np.all(np.isfinite(_numeric(a))):
                return True
    return False


def holds_nan(*values: Any) -> bool:
    for a in (x for v in values for x in arrays(v)):
        if a.dtype.kind not in "biu" and bool(np.any(np.isnan(_numeric(a)))):
            return True
    return False


DEPARTURES: tuple[Departure, ...] = ()


def departure_of(finding: Any, backend: str) -> Departure | None:
    """The documented departure a finding is in, or None."""
    if finding is None or finding.inputs is None:
        return None
    for departure in DEPARTURES:
        if finding.op in departure.ops and backend in departure.backends and \
                departure.applies(finding.inputs, finding.attrs or {}):
            return departure
    return None
