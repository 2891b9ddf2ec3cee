"""jax lowerings of the token and side-effect ops.

Tokens are empty pred arrays (the ordering they express is kept by ordered host callbacks, which
run in program order). Infeed and Outfeed are ``jax.experimental.io_callback(..., ordered=True)``
calls that take from and append to the running execution's :class:`~backend.runtime.host_io.HostIO`;
CustomCall traces the ``jax`` function registered for its target.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

from backend.errors import OpError
from backend.jax_backend import LoweringContext, limitation, lowering
from backend.runtime import host_io
from backend.runtime.custom_calls import missing_target_reason
from backend.runtime.side_effects import CUSTOM_CALLS, called_computation, read_infeed, target_of


def token_value() -> Any:
    """A token's jax value: an empty pred array (the point-to-point lowerings' tokens too)."""
    return jnp.zeros((0,), jnp.bool_)


@lowering("CreateToken")
def create_token(ctx: LoweringContext) -> Any:
    return token_value()


@lowering("AfterAll")
def after_all(ctx: LoweringContext, tokens: list[Any]) -> Any:
    return token_value()


def _struct(shape: Any) -> Any:
    if shape.is_tuple():
        return tuple(_struct(s) for s in shape.tuple_shapes())
    return jax.ShapeDtypeStruct(shape.dimensions(), shape.numpy_dtype())


def _recorded(fn: Any) -> Any:
    """``fn`` as a host callback: an exception is kept on the execution's HostIO (the executor raises
    it instead of the runtime error jax wraps it in)."""
    def callback(*args: Any) -> Any:
        io = host_io.current_io()
        try:
            return fn(*args)
        except Exception as e:
            io.error = e
            raise
    return callback


def _infeed(op: str, shape: Any) -> Any:
    if shape.is_tuple() and not shape.tuple_shapes():
        return ()
    return io_callback(_recorded(lambda: read_infeed(op, shape)), _struct(shape), ordered=True)


@lowering("Infeed")
def infeed(ctx: LoweringContext) -> Any:
    return _infeed("Infeed", ctx.shape)


@lowering("InfeedWithToken")
def infeed_with_token(ctx: LoweringContext, token: Any) -> Any:
    return _infeed("InfeedWithToken", ctx.shape.tuple_shapes()[0]), token_value()


def _push(value: Any) -> Any:
    host_io.current_io().outfeed.append(jax.tree_util.tree_map(np.array, value))
    return np.zeros((0,), np.bool_)


@lowering("Outfeed")
def outfeed(ctx: LoweringContext, operand: Any) -> Any:
    return io_callback(_recorded(_push), jax.ShapeDtypeStruct((0,), np.bool_), operand, ordered=True)


@lowering("OutfeedWithToken")
@lowering("SendToHost")
def outfeed_after_token(ctx: LoweringContext, operand: Any, token: Any) -> Any:
    """OutfeedWithToken and SendToHost (a host channel, written through the outfeed): Outfeed ordered by the token."""
    return outfeed(ctx, operand)


@lowering("RecvFromHost")
def recv_from_host(ctx: LoweringContext, token: Any) -> Any:
    return _infeed("RecvFromHost", ctx.shape.tuple_shapes()[0]), token_value()


def _check_traced(op: str, target: str, shape: Any, value: Any) -> Any:
    """The target's traced result, checked against the declared shape (an OpError naming both)."""
    if shape.is_tuple():
        parts = shape.tuple_shapes()
        if not isinstance(value, (tuple, list)) or len(value) != len(parts):
            raise OpError(op, "host-value", f"custom-call target '{target}' must return a tuple of {len(parts)} "
                          f"values for {shape}, got {type(value).__name__}", "value", {"shape": str(shape)})
        return tuple(_check_traced(op, target, s, v) for s, v in zip(parts, value))
    if shape.is_token():
        return token_value()
    value = jnp.asarray(value)
    if value.dtype != shape.numpy_dtype() or tuple(value.shape) != shape.dimensions():
        raise OpError(op, "host-value", f"the result of custom-call target '{target}' must be {shape}, got "
                      f"{value.dtype}{list(value.shape)}", "value", {"shape": str(shape)})
    return value


@lowering(*CUSTOM_CALLS)
def custom_call(ctx: LoweringContext, operands: list[Any]) -> Any:
    target = target_of(ctx)
    result = target.call(ctx.backend, operands, ctx.attr("opaque"), called_computation(ctx))
    return _check_traced(ctx.inst.opcode, target.name, ctx.shape, result)


@limitation(*CUSTOM_CALLS)
def custom_call_target_missing(inst: Any, operand_shapes: list[Any]) -> str | None:
    return missing_target_reason(inst.attrs["call_target_name"], "jax")
