"""The ``reference`` backend: runs a computation with the NumPy evaluators (the oracle).

Programs with bounded-dynamic dimensions run here with runtime-sized values (see
:mod:`backend.reference.dynamic_shape`): the walker aligns the operands of element-wise ops to
their runtime sizes and checks every value against its static shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.backends import check_arguments, check_computation, check_replicas, flatten_result
from backend.builder import XlaComputation
from backend.errors import UnsupportedError
from backend.host_io import HostIO, active_io, missing_target_reason
from backend.interpreter import EvalContext, GraphWalker, TailCall
from backend.reference import EVALUATORS
from backend.reference.dynamic_shape import align_runtime_sizes, check_runtime_value, unsupported_reason


class RuntimeSizedWalker(GraphWalker):
    """The graph walker with runtime sizes: values of dynamic shapes are arrays of their runtime size."""

    def evaluate(self, fn: Any, ctx: EvalContext, operands: list[Any]) -> Any:
        value = self._evaluate(fn, ctx, operands)
        # NumPy gives scalars, not 0-d arrays, for some rank-0 results; the next op may assign into
        # its operand's copy (DynamicUpdateSlice of a rank-0 Max crashed; found by the fuzzer).
        return value if isinstance(value, (tuple, list, TailCall)) else np.asarray(value)

    def _evaluate(self, fn: Any, ctx: EvalContext, operands: list[Any]) -> Any:
        if ctx.shape.is_static() and all(s.is_static() for s in ctx.operand_shapes):
            return fn(ctx, *operands)
        reason = unsupported_reason(ctx.inst.opcode, list(ctx.operand_shapes), ctx.shape)
        if reason:
            raise UnsupportedError(self.backend, ctx.inst.opcode, reason)
        value = fn(ctx, *align_runtime_sizes(ctx, operands))
        check_runtime_value(ctx, value)
        return value


class ReferenceBackend:
    name = "reference"

    def __init__(self) -> None:
        self._walker = RuntimeSizedWalker(self.name, EVALUATORS)

    def info(self) -> dict[str, str]:
        """What a conformance report records about this backend: NumPy on the host."""
        return {"version": f"numpy {np.__version__}", "platform": "cpu", "device": "host"}

    def supports(self, computation: XlaComputation) -> str | None:
        for comp in [*check_computation(computation).subcomputations(), computation]:
            for inst in comp.instructions:
                if inst.opcode not in EVALUATORS:
                    return f"{inst.opcode} has no reference evaluator"
                reason = unsupported_reason(inst.opcode, [comp.instruction(o).shape for o in inst.operands],
                                            inst.shape)
                if reason:
                    return reason
                if "call_target_name" in inst.attrs:
                    reason = missing_target_reason(inst.attrs["call_target_name"], self.name)
                    if reason:
                        return f"{inst.opcode}: {reason}"
        return None

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1, *,
                infeed: Sequence[Any] = (), outfeed: list[Any] | None = None) -> list[Any]:
        """The results; Infeed ops take the ``infeed`` values in order, Outfeed ops append to ``outfeed``."""
        args = check_arguments(computation, arguments)
        check_replicas(computation, replicas)
        with active_io(HostIO(infeed, outfeed)):
            result = self._walker.run(computation, args)
        return flatten_result(result, computation.root_instruction.shape)
