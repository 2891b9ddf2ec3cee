"""The one graph walker shared by the reference interpreter and the jax lowering.

Each instruction is evaluated by the function registered for its opcode in a table; the
function gets an :class:`EvalContext` and the operand values grouped by the spec's arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.builder import Instruction, XlaComputation
from backend.errors import OpError, UnsupportedError
from backend.registry import Registry
from backend.shape import Shape


class EvalContext:
    """What an evaluator or lowering sees besides its operand values."""

    def __init__(self, inst: Instruction, walker: GraphWalker, arguments: Sequence[Any],
                 operand_shapes: Sequence[Shape] = ()) -> None:
        self.inst = inst
        self.attrs = inst.attrs
        self.shape = inst.shape
        self.arguments = arguments
        #: The static shapes of the operands, in instruction order (flat, not grouped).
        self.operand_shapes = tuple(operand_shapes)
        self._walker = walker

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    def call(self, computation: XlaComputation, args: Sequence[Any]) -> Any:
        """Run a sub-computation on values of this walker's kind."""
        return self._walker.run(computation, args)


class GraphWalker:
    def __init__(self, backend: str, table: Registry) -> None:
        self.backend = backend
        self.table = table

    def run(self, computation: XlaComputation, args: Sequence[Any]) -> Any:
        values: dict[int, Any] = {}
        for inst in computation.instructions:
            fn = self.table.get(inst.opcode)
            if fn is None:
                raise UnsupportedError(self.backend, inst.opcode, "no implementation registered")
            operands = inst.grouped([values[o] for o in inst.operands])
            ctx = EvalContext(inst, self, args, [computation.instruction(o).shape for o in inst.operands])
            try:
                values[inst.id] = self.evaluate(fn, ctx, operands)
            except (OpError, UnsupportedError):
                raise
            except Exception as e:  # a library error must not escape raw: name the op
                raise UnsupportedError(self.backend, inst.opcode,
                                       f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from e
        return values[computation.root]

    def evaluate(self, fn: Any, ctx: EvalContext, operands: list[Any]) -> Any:
        """One instruction's value (a hook: the reference backend adds runtime-size handling)."""
        return fn(ctx, *operands)
