"""Conformance cases as data."""

from __future__ import annotations

import dataclasses
from typing import Any

GOLDEN, GENERATED, ERROR = "golden", "generated", "error"


@dataclasses.dataclass(frozen=True)
class Case:
    """One check of one op.

    ``inputs`` maps operand argument names to NumPy values (golden/generated) or Shapes (error
    cases); ``attrs`` are the op's attribute arguments; ``expected`` the expected result (None
    for error cases, which expect ``violates``); ``implementation_defined`` names the spec's
    implementation-defined behaviour a golden example exercises; ``generation_error`` records a
    reference crash while computing ``expected`` (a bug of ours: the case fails on every backend).
    """

    id: str
    op: str
    kind: str
    inputs: dict[str, Any]
    attrs: dict[str, Any]
    expected: Any = None
    violates: str | None = None
    implementation_defined: str | None = None
    generation_error: str | None = None
