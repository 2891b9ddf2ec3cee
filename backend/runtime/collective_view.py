"""An instruction seen as the collective it composes: how AllReduceStart, AllGatherStart and
CollectivePermuteStart run through AllReduce's, AllGather's and CollectivePermute's own evaluators and
lowerings (one implementation of each collective; the Start adds only its tuple around the result)."""

from __future__ import annotations

from typing import Any


class _InstructionView:
    def __init__(self, inst: Any, opcode: str, attrs: dict[str, Any], shape: Any) -> None:
        self._inst, self.opcode, self.attrs, self.shape = inst, opcode, attrs, shape

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inst, name)


class CollectiveView:
    """``ctx`` (an evaluator's or lowering's context) as the context of ``opcode`` with result ``shape``; the
    collective's arguments the Start does not take get their defaults from ``defaults``."""

    def __init__(self, ctx: Any, opcode: str, shape: Any, defaults: dict[str, Any]) -> None:
        self._ctx = ctx
        self.attrs = {**defaults, **ctx.attrs}
        self.shape = shape
        self.inst = _InstructionView(ctx.inst, opcode, self.attrs, shape)

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)


#: Each Start's collective, and the collective's arguments the Start does not take (with their defaults).
COMPOSED = {
    "AllReduceStart": ("AllReduce", {"shape_with_layout": None}),
    "AllGatherStart": ("AllGather", {"layout": None}),
    "CollectivePermuteStart": ("CollectivePermute", {"inplace": False}),
}


def collective_result(table: Any, ctx: Any, operand: Any) -> Any:
    """The Start's collective run on ``operand`` by its function in ``table`` (the reference's evaluators or
    the jax lowerings); its result shape is the Start's own (AllReduceStart) or the Start tuple's second."""
    opcode, defaults = COMPOSED[ctx.inst.opcode]
    shape = ctx.shape.tuple_shapes()[1] if ctx.shape.is_tuple() else ctx.shape
    return table.get(opcode)(CollectiveView(ctx, opcode, shape, defaults), operand)
