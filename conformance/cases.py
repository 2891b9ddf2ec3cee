"""Conformance cases as data."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from conformance import programs

GOLDEN, GENERATED, ERROR = "golden", "generated", "error"
#: A whole program of the corpus (conformance/programs/) run on the backend against the reference: its case id is
#: ``program/NAME`` and its op ``program`` (one scoreboard row for the corpus; a verdict per program).
PROGRAM = "program"
#: How a case's operand inputs enter the computation: as Parameters bound to the values at
#: execution, or as Constants holding them (a backend's constant folding must agree with its code).
PARAMETERS, CONSTANTS = "param", "const"


@dataclasses.dataclass(frozen=True)
class Case:
    """One check of one op.

    ``inputs`` maps operand argument names to NumPy values (golden/generated) or Shapes (error
    cases); ``attrs`` are the op's attribute arguments; ``expected`` the expected result (None
    for error cases, which expect ``violates``); ``implementation_defined`` names the spec's
    implementation-defined entries a golden example exercises; ``generation_error`` records a
    reference crash while computing ``expected`` (a bug of ours: the case fails on every backend);
    ``operand_form`` says whether the operands are Parameters or Constants; ``infeed`` holds the
    values the program's Infeed ops read and ``outfeed`` the values its Outfeed ops must write
    (None: the case does not check the outfeed). ``devices`` is ``(replicas, partitions)`` for a case run on
    several devices (or named with its device count, ``1x1``): an input is then one value (every device's) or a
    ``specs.loader.PerDevice``, ``expected`` a PerDevice of per-device results, and an error case's constraint
    is one execute reports (not the builder).
    """

    id: str
    op: str
    kind: str
    inputs: dict[str, Any]
    attrs: dict[str, Any]
    expected: Any = None
    violates: str | None = None
    implementation_defined: tuple[str, ...] = ()
    generation_error: str | None = None
    operand_form: str = PARAMETERS
    infeed: tuple[Any, ...] = ()
    outfeed: tuple[Any, ...] | None = None
    devices: tuple[int, int] | None = None

    @property
    def device_count(self) -> int:
        return 1 if self.devices is None else self.devices[0] * self.devices[1]


def devices_label(devices: tuple[int, int] | None) -> str:
    """The case-id part naming the device count (``4x1``: 4 replicas, 1 partition); empty for one device
    of an op that does not name it."""
    return "" if devices is None else f"/{devices[0]}x{devices[1]}"


def in_both_operand_forms(case: Case) -> list[Case]:
    """The case with its operands as Parameters (id ``.../param``) and as Constants (``.../const``).

    A case without operand values (an op with only attributes) stays a single case; so does one whose devices
    take different values (a constant is the same on every device): it runs with Parameters (``.../param``).
    """
    from specs.loader import PerDevice

    if not case.inputs:
        return [case]
    if any(isinstance(v, PerDevice) or (isinstance(v, list) and any(isinstance(x, PerDevice) for x in v))
           for v in case.inputs.values()):
        return [dataclasses.replace(case, id=f"{case.id}/{PARAMETERS}", operand_form=PARAMETERS)]
    return [dataclasses.replace(case, id=f"{case.id}/{form}", operand_form=form) for form in (PARAMETERS, CONSTANTS)]


def program_case(name: str) -> Case:
    """The case that runs the corpus program ``name`` (conformance/programs/NAME.mlir on NAME.npz)."""
    return Case(id=f"{PROGRAM}/{name}", op=PROGRAM, kind=PROGRAM, inputs={}, attrs={})


def program_cases() -> list[Case]:
    """A case per program of the corpus, by name."""
    return [program_case(name) for name in programs.names()]


def program_name(case: Case) -> str:
    """The program a case of kind ``program`` runs."""
    return case.id.removeprefix(f"{PROGRAM}/")


def program_command(case: Case, backend: str) -> str:
    """The Python snippet that checks a program case's program alone (its reproduction when no op is localised)."""
    mlir, npz = programs.paths(program_name(case))
    root = Path(__file__).resolve().parent.parent
    return program_snippet(backend, str(mlir.relative_to(root)), str(npz.relative_to(root)))


def program_snippet(backend: str, program: str, inputs: str | None = None, seed: int = 0) -> str:
    """The Python snippet that checks ``program`` on the backend (on ``inputs``, an .npz, or inputs drawn with
    ``seed``), as ``python -m conformance check-program`` does."""
    values = f"load_inputs({inputs!r}, computation)" if inputs else f"draw_inputs(computation, {seed})"
    return "\n".join(["from backend import get_backend",
                      "from conformance.check_program import check_program, draw_inputs, load_inputs, load_program, "
                      "text_report", "", f"computation = load_program({program!r})",
                      f"print(text_report(check_program(computation, get_backend({backend!r}), {values})))"])
