"""The ``reference`` backend: runs a computation with the NumPy evaluators (the oracle)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.backends import check_arguments, check_computation, check_replicas, flatten_result
from backend.builder import XlaComputation
from backend.interpreter import GraphWalker
from backend.reference import EVALUATORS


class ReferenceBackend:
    name = "reference"

    def __init__(self) -> None:
        self._walker = GraphWalker(self.name, EVALUATORS)

    def supports(self, computation: XlaComputation) -> str | None:
        check_computation(computation)
        for inst in (i for comp in (computation, *computation.subcomputations()) for i in comp.instructions):
            if inst.opcode not in EVALUATORS:
                return f"{inst.opcode} has no reference evaluator"
        return None

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1) -> list[Any]:
        args = check_arguments(computation, arguments)
        check_replicas(computation, replicas)
        result = self._walker.run(computation, args)
        return flatten_result(result, computation.root_instruction.shape)
