"""An instruction seen as the collective it composes: how AllReduceStart, AllGatherStart and
CollectivePermuteStart run through AllReduce's, AllGather's and CollectivePermute's own evaluators and
lowerings (one implementation of each collective; the Start adds only its tuple around the result)."""

from __future__ import annotations

import dataclasses
from typing import Any

from backend.errors import UnsupportedError
from backend.hlo.shape import Shape
from backend.runtime.context import ContextView, D, OpRunContext
from backend.runtime.walker import FunctionTable


class CollectiveView(ContextView[D]):
    """``ctx`` (an evaluator's or lowering's context) as the context of ``opcode`` with result ``shape``; the
    collective's arguments the Start does not take get their defaults from ``defaults``."""

    def __init__(self, ctx: OpRunContext[D], opcode: str, shape: Shape, defaults: dict[str, Any]) -> None:
        attrs = {**defaults, **ctx.attrs}
        super().__init__(ctx, inst=dataclasses.replace(ctx.inst, opcode=opcode, attrs=attrs, shape=shape),
                         attrs=attrs, shape=shape)


#: Each Start's collective, and the collective's arguments the Start does not take (with their defaults).
COMPOSED: dict[str, tuple[str, dict[str, Any]]] = {
    "AllReduceStart": ("AllReduce", {"shape_with_layout": None}),
    "AllGatherStart": ("AllGather", {"layout": None}),
    "CollectivePermuteStart": ("CollectivePermute", {"inplace": False}),
}


def collective_result(table: FunctionTable, ctx: OpRunContext[D], operand: Any) -> Any:
    """The Start's collective run on ``operand`` by its function in ``table`` (the reference's evaluators or
    the jax lowerings); its result shape is the Start's own (AllReduceStart) or the Start tuple's second."""
    opcode, defaults = COMPOSED[ctx.inst.opcode]
    shape = ctx.shape.tuple_shapes()[1] if ctx.shape.is_tuple() else ctx.shape
    fn = table.get(opcode)
    if fn is None:
        raise UnsupportedError(ctx.backend, ctx.inst.opcode, f"no implementation registered for {opcode}")
    return fn(CollectiveView(ctx, opcode, shape, defaults), operand)
