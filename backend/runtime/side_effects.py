"""The backend-neutral part of the side-effect ops, shared by the reference evaluators and the jax lowerings:
reading the infeed, finding a custom call's target, running its called computation."""

from __future__ import annotations

from typing import Any

from backend.errors import UnsupportedError
from backend.runtime import host_io
from backend.runtime.context import DeviceInfo, OpRunContext
from backend.runtime.custom_calls import CustomCallTarget, custom_call_target, missing_target_reason

CUSTOM_CALLS = ("CustomCall", "CustomCallWithLayout", "CustomCallWithAliasing", "CustomCallWithComputation")


def read_infeed(op: str, shape: Any) -> Any:
    """The next infeed value as ``shape``'s value; an empty tuple shape reads nothing (the seed)."""
    if shape.is_tuple() and not shape.tuple_shapes():
        return ()
    io = host_io.current_io()
    index = io.taken
    return host_io.conform(op, f"infeed value {index}", shape, io.take(op))


def target_of(ctx: OpRunContext[DeviceInfo]) -> CustomCallTarget:
    """The custom-call target the instruction names, for the backend running it, or an UnsupportedError."""
    name = ctx.attr("call_target_name")
    target = custom_call_target(name, ctx.backend)
    if target is None:
        raise UnsupportedError(ctx.backend, ctx.inst.opcode, missing_target_reason(name, ctx.backend) or "")
    return target


def called_computation(ctx: OpRunContext[DeviceInfo]) -> Any:
    """A function running the op's ``computation`` attribute on this backend's values (or None)."""
    computation = ctx.attrs.get("computation")
    if computation is None:
        return None


    def run(*args: Any) -> Any:
        return ctx.call(computation, list(args))
    return run
