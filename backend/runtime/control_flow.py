"""The backend-neutral control-flow ops: Call and CompositeCall hand their computation to the walker
(``ctx.tail_call``), which runs it on its own frame stack, on every backend; each backend's ``control_flow``
module registers them."""

from __future__ import annotations

from typing import Any

from backend.runtime.context import DeviceInfo, OpRunContext
from backend.runtime.walker import TailCall


def call(ctx: OpRunContext[DeviceInfo], operands: list[Any]) -> TailCall:
    return ctx.tail_call(ctx.attr("computation"), operands)


def composite_call(ctx: OpRunContext[DeviceInfo], operands: list[Any]) -> TailCall:
    return ctx.tail_call(ctx.attr("computation"), operands)  # the decomposition is the semantics
