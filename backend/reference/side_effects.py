"""Reference evaluators of the token and side-effect ops.

Tokens are :data:`~backend.host_io.TOKEN`; Infeed takes the next value given to ``execute(...,
infeed=[...])``, Outfeed appends to its ``outfeed`` list; CustomCall runs the target registered
with :func:`~backend.host_io.register_custom_call_target`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backend import custom_call_targets, host_io
from backend.errors import UnsupportedError
from backend.reference import evaluator

#: The example targets the CustomCall specs use are registered with this module.
EXAMPLE_TARGETS = custom_call_targets
CUSTOM_CALLS = ("CustomCall", "CustomCallWithLayout", "CustomCallWithAliasing", "CustomCallWithComputation")


@evaluator("CreateToken")
def create_token(ctx: Any) -> Any:
    return host_io.TOKEN


@evaluator("AfterAll")
def after_all(ctx: Any, tokens: list[Any]) -> Any:
    return host_io.TOKEN


def read_infeed(op: str, shape: Any) -> Any:
    """The next infeed value as ``shape``'s value; an empty tuple shape reads nothing (the seed)."""
    if shape.is_tuple() and not shape.tuple_shapes():
        return ()
    io = host_io.current_io()
    index = io.taken
    return host_io.conform(op, f"infeed value {index}", shape, io.take(op))


@evaluator("Infeed")
def infeed(ctx: Any) -> Any:
    return read_infeed("Infeed", ctx.shape)


@evaluator("InfeedWithToken")
def infeed_with_token(ctx: Any, token: Any) -> Any:
    return read_infeed("InfeedWithToken", ctx.shape.tuple_shapes()[0]), host_io.TOKEN


def _copy(value: Any) -> Any:
    return tuple(_copy(v) for v in value) if isinstance(value, tuple) else np.array(value)


@evaluator("Outfeed")
def outfeed(ctx: Any, operand: Any) -> Any:
    host_io.current_io().outfeed.append(_copy(operand))
    return host_io.TOKEN


@evaluator("OutfeedWithToken")
@evaluator("SendToHost")
def outfeed_after_token(ctx: Any, operand: Any, token: Any) -> Any:
    """OutfeedWithToken and SendToHost (a host channel, written through the outfeed): Outfeed ordered by the token."""
    return outfeed(ctx, operand)


@evaluator("RecvFromHost")
def recv_from_host(ctx: Any, token: Any) -> Any:
    return read_infeed("RecvFromHost", ctx.shape.tuple_shapes()[0]), host_io.TOKEN


def target_of(ctx: Any) -> host_io.CustomCallTarget:
    """The custom-call target the instruction names, for the backend running it, or an UnsupportedError."""
    name = ctx.attr("call_target_name")
    target = host_io.custom_call_target(name, ctx.backend)
    if target is None:
        raise UnsupportedError(ctx.backend, ctx.inst.opcode, host_io.missing_target_reason(name, ctx.backend) or "")
    return target


def called_computation(ctx: Any) -> Any:
    """A function running the op's ``computation`` attribute on this backend's values (or None)."""
    computation = ctx.attrs.get("computation")
    if computation is None:
        return None

    def run(*args: Any) -> Any:
        return ctx.call(computation, list(args))
    return run


@evaluator(*CUSTOM_CALLS)
def custom_call(ctx: Any, operands: list[Any]) -> Any:
    target = target_of(ctx)
    result = target.call(ctx.backend, operands, ctx.attr("opaque"), called_computation(ctx))
    return host_io.conform(ctx.inst.opcode, f"the result of custom-call target '{target.name}'", ctx.shape, result)
