"""jax lowerings of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast.

The source tables come from backend/runtime/point_to_point.py (one place, the reference's too; they also
check the ids against the device count). CollectivePermute is ``lax.ppermute`` over the mesh axis of its group mode
(the pairs' ids are that axis's indices, and ppermute zeros the devices no pair targets, as the seed
says); CollectiveBroadcast takes the path :func:`backend.jax_backend.collective_paths.collective_path` names: groups
of one size holding every device sum, with ``lax.psum`` over the groups, the group's first device's operand and
zeros from the others, as bits (exact); other groups gather every device's operand and pick by a static table.
Send/Recv pair up while tracing, through the same module's channel mailbox (``ctx.channels`` holds traced
values); tokens are the side-effect lowerings' (:func:`~backend.jax_backend.side_effects.token_value`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.jax_backend.collective_paths import collective_path
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
    axis = collective_path(ctx.inst, ctx.devices.replicas, ctx.devices.partitions).axis
    perm = [(int(s), int(t)) for s, t in ctx.attr("source_target_pairs")]
    return [lax.ppermute(x, axis, perm=perm) for x in operands]


@lowering("CollectivePermute")
def collective_permute(ctx: LoweringContext, operand: Any) -> Any:
    return _permute(ctx, [operand])[0]


@lowering("MultiCollectivePermute")
def multi_collective_permute(ctx: LoweringContext, operands: list[Any]) -> Any:
    out = _permute(ctx, operands)
    return out[0] if len(out) == 1 else tuple(out)


def _exact_psum(x: jax.Array, axes: Sequence[str], groups: list[list[int]] | None) -> jax.Array:
    """``lax.psum`` of values that are zero on every device but one: exact, since it adds integers (a float's
    bits as the unsigned integer of its width, a complex number's parts one by one, booleans as u8)."""
    def psum(v: jax.Array) -> jax.Array:
        return lax.psum(v, tuple(axes), axis_index_groups=groups)
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return lax.complex(_exact_psum(jnp.real(x), axes, groups), _exact_psum(jnp.imag(x), axes, groups))
    if x.dtype == jnp.bool_:
        return psum(x.astype(jnp.uint8)).astype(jnp.bool_)
    if jnp.issubdtype(x.dtype, jnp.integer):
        return psum(x)
    bits = jnp.dtype(f"uint{8 * x.dtype.itemsize}")
    return lax.bitcast_convert_type(psum(lax.bitcast_convert_type(x, bits)), x.dtype)


@lowering("CollectiveBroadcast")
def collective_broadcast(ctx: LoweringContext, operand: Any) -> Any:
    devices = ctx.devices
    path = collective_path(ctx.inst, devices.replicas, devices.partitions)
    if path.name == "identity":
        return operand
    sources = broadcast_table(ctx)
    me = devices.device_id()
    if path.name == "psum_from_source":
        is_source = devices.table([s == d for d, s in enumerate(sources)], dtype=jnp.bool_)[me]
        return _exact_psum(jnp.where(is_source, operand, jnp.zeros_like(operand)), devices.axis_names,
                           path.axis_index_groups)
    if devices.count == 1:
        return operand if sources[0] is not None else jnp.zeros_like(operand)
    everything = devices.gather_all(operand)
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
