"""The backend-neutral creation ops: Parameter, Tuple and GetTupleElement are the same on every backend (they
only pick and group values), so each is defined once here; each backend's ``creation`` module registers it."""

from __future__ import annotations

from typing import Any

from backend.runtime.context import DeviceInfo, OpRunContext


def parameter(ctx: OpRunContext[DeviceInfo]) -> Any:
    """The computation's argument ``number``."""
    return ctx.arguments[ctx.attr("number")]


def tuple_(ctx: OpRunContext[DeviceInfo], elements: list[Any]) -> tuple[Any, ...]:
    return tuple(elements)


def get_tuple_element(ctx: OpRunContext[DeviceInfo], tuple_data: tuple[Any, ...]) -> Any:
    return tuple_data[ctx.attr("index")]
