"""The backend-neutral internal HLO instructions: those that pass a value on or take it out of a Start's tuple,
and Fusion (its computation, tail-called), the same on every backend; each backend's ``internal`` module
registers them."""

from __future__ import annotations

from typing import Any

from backend.runtime.context import DeviceInfo, OpRunContext
from backend.runtime.walker import TailCall


def identity(ctx: OpRunContext[DeviceInfo], operand: Any) -> Any:
    """Copy, Domain, AsyncUpdate: the operand's value."""
    return operand


def add_dependency(ctx: OpRunContext[DeviceInfo], operand: Any, token: Any) -> Any:
    return operand


def copy_done(ctx: OpRunContext[DeviceInfo], operand: tuple[Any, ...]) -> Any:
    """The copy in CopyStart's (copy, operand, context)."""
    return operand[0]


def async_done(ctx: OpRunContext[DeviceInfo], operand: tuple[Any, ...]) -> Any:
    """The result in AsyncStart's (operands, result, context)."""
    return operand[1]


def fusion(ctx: OpRunContext[DeviceInfo], operands: list[Any]) -> TailCall:
    return ctx.tail_call(ctx.attr("fused_computation"), operands)


def all_reduce_done(ctx: OpRunContext[DeviceInfo], operand: Any) -> Any:
    """AllReduceStart's value is the reduced array itself."""
    return operand


def received(ctx: OpRunContext[DeviceInfo], operand: tuple[Any, ...]) -> Any:
    """AllGatherDone, CollectivePermuteDone: the result in the Start's (operand, result, ...)."""
    return operand[1]
