"""Hand-made conformance cases and the outcomes the reference allows for them, for the tests of an op's
implementation-defined entries (how the suite judges a backend's answer)."""

from __future__ import annotations

from typing import Any

import specs
from conformance.build import build_case
from conformance.cases import GOLDEN, Case
from conformance.outcomes import allowed_outcomes


def golden_case(op: str, inputs: dict, expected: Any, attrs: dict | None = None, tag: str | None = None) -> Case:
    """A golden case ``<op>/golden/test``; ``tag`` names the implementation-defined entry it exercises."""
    return Case(id=f"{op}/golden/test", op=op, kind=GOLDEN, inputs=inputs, attrs=attrs or {}, expected=expected,
                implementation_defined=tag)


def allowed_table(op: str, inputs: dict, attrs: dict) -> dict:
    """The implementation-defined entries the reference allows for ``op`` on these inputs, by name."""
    comp, args = build_case(specs.get(op), inputs, attrs)
    return allowed_outcomes(specs.get(op), comp, args)


def spec_example_case(op: str, name: str) -> Case:
    """The golden case of the spec's example ``name`` (its inputs, attributes, expected value and entry)."""
    example = next(e for e in specs.get(op).examples if e.name == name)
    return Case(id=f"{op}/golden/{name}", op=op, kind=GOLDEN, inputs=dict(example.inputs), attrs=dict(example.attrs),
                expected=example.expected, implementation_defined=example.implementation_defined)


class FunctionBackend:
    """A one-op test backend: ``execute`` returns ``[fn(*arguments)]`` (a plausible bug written as NumPy; a tuple
    ``fn`` returns is the outputs of a tuple result)."""

    def __init__(self, name: str, fn: Any) -> None:
        self.name = name
        self.fn = fn

    def supports(self, computation: Any) -> None:
        return None

    def execute(self, computation: Any, arguments: list[Any]) -> list[Any]:
        result = self.fn(*arguments)
        return list(result) if isinstance(result, tuple) else [result]
