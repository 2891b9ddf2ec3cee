"""jax lowerings of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast.

The source tables come from backend/runtime/point_to_point.py (one place, the reference's too; they also
check the ids against the device count). CollectivePermute is ``lax.ppermute`` over the mesh axis of its group mode
(the pairs' ids are that axis's indices, and ppermute zeros the devices no pair targets, as the seed
says); CollectiveBroadcast gathers every device's operand and picks by a static table.
Send/Recv pair up while tracing, through the same module's channel mailbox (``ctx.channels`` holds traced
values); tokens are the side-effect lowerings' (:func:`~backend.jax_backend.side_effects.token_value`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.side_effects import token_value
from backend.runtime.point_to_point import (
    REQUEST_ID,
    broadcast_table,
    one_device,
    permute_table,
    post_send,
    take_received,
)


def _permute(ctx: LoweringContext, operands: Sequence[Any]) -> list[Any]:
    sources = permute_table(ctx, "C6")
    if ctx.devices.count == 1:
        return [x if sources[0] is not None else jnp.zeros_like(x) for x in operands]
    axis = ctx.devices.axis_names[0 if ctx.attr("channel_id") is None else 1]
    perm = [(int(s), int(t)) for s, t in ctx.attr("source_target_pairs")]
    return [lax.ppermute(x, axis, perm=perm) for x in operands]


@lowering("CollectivePermute")
def collective_permute(ctx: LoweringContext, operand: Any) -> Any:
    return _permute(ctx, [operand])[0]


@lowering("MultiCollectivePermute")
def multi_collective_permute(ctx: LoweringContext, operands: list[Any]) -> Any:
    out = _permute(ctx, operands)
    return out[0] if len(out) == 1 else tuple(out)


@lowering("CollectiveBroadcast")
def collective_broadcast(ctx: LoweringContext, operand: Any) -> Any:
    sources = broadcast_table(ctx)
    devices = ctx.devices
    if devices.count == 1:
        return operand if sources[0] is not None else jnp.zeros_like(operand)
    everything = devices.gather_all(operand)
    me = devices.device_id()
    source = devices.table([0 if s is None else s for s in sources])[me]
    has_source = devices.table([s is not None for s in sources], dtype=jnp.bool_)[me]
    return jnp.where(has_source, everything[source], jnp.zeros_like(operand))


@lowering("Send")
def send(ctx: LoweringContext, operand: Any) -> Any:
    data, _, _ = post_send(ctx, operand)
    return data, jnp.uint32(REQUEST_ID), token_value()


@lowering("Recv")
def recv(ctx: LoweringContext) -> Any:
    data = ctx.shape.tuple_shapes()[0]
    one_device(ctx)
    return jnp.zeros(data.dimensions(), data.numpy_dtype()), jnp.uint32(REQUEST_ID), token_value()


@lowering("SendDone")
def send_done(ctx: LoweringContext, context: Any) -> Any:
    return token_value()


@lowering("RecvDone")
def recv_done(ctx: LoweringContext, context: Any) -> Any:
    return take_received(ctx, context[0]), token_value()
