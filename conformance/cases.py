"""Conformance cases as data."""

from __future__ import annotations

import dataclasses
from typing import Any

GOLDEN, GENERATED, ERROR = "golden", "generated", "error"
#: How a case's operand inputs enter the computation: as Parameters bound to the values at
#: execution, or as Constants holding them (a backend's constant folding must agree with its code).
PARAMETERS, CONSTANTS = "param", "const"


@dataclasses.dataclass(frozen=True)
class Case:
    """One check of one op.

    ``inputs`` maps operand argument names to NumPy values (golden/generated) or Shapes (error
    cases); ``attrs`` are the op's attribute arguments; ``expected`` the expected result (None
    for error cases, which expect ``violates``); ``implementation_defined`` names the spec's
    implementation-defined behaviour a golden example exercises; ``generation_error`` records a
    reference crash while computing ``expected`` (a bug of ours: the case fails on every backend);
    ``operand_form`` says whether the operands are Parameters or Constants; ``infeed`` holds the
    values the program's Infeed ops read and ``outfeed`` the values its Outfeed ops must write
    (None: the case does not check the outfeed).
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
    operand_form: str = PARAMETERS
    infeed: tuple[Any, ...] = ()
    outfeed: tuple[Any, ...] | None = None


def in_both_operand_forms(case: Case) -> list[Case]:
    """The case with its operands as Parameters (id ``.../param``) and as Constants (``.../const``).

    A case without operand values (an op with only attributes) stays a single case.
    """
    if not case.inputs:
        return [case]
    return [dataclasses.replace(case, id=f"{case.id}/{form}", operand_form=form) for form in (PARAMETERS, CONSTANTS)]
