"""Reference evaluators of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast; Send, Recv, SendDone, RecvDone (on one device: a Send posts its operand on its channel in
``ctx.channels``, the RecvDone of a Recv on that channel takes the oldest).

The per-device source tables and the channel mailbox are :mod:`backend.runtime.point_to_point` (the jax lowerings
share them). Each device's result is picked from every device's operand (``ctx.devices.exchange``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.hlo.token import TOKEN
from backend.reference import EvaluatorContext, evaluator
from backend.runtime.point_to_point import (
    REQUEST_ID,
    broadcast_table,
    one_device,
    permute_table,
    post_send,
    take_received,
)


def _received(ctx: EvaluatorContext, operands: Sequence[np.ndarray], sources: list[int | None]) -> list[np.ndarray]:
    everything = ctx.devices.exchange(tuple(operands), ctx.inst.opcode)
    source = sources[ctx.devices.device_id]
    return [np.zeros_like(x) if source is None else np.array(everything[source][k]) for k, x in enumerate(operands)]


@evaluator("CollectivePermute")
def collective_permute(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    return _received(ctx, [operand], permute_table(ctx, "C6"))[0]


@evaluator("MultiCollectivePermute")
def multi_collective_permute(ctx: EvaluatorContext, operands: list[np.ndarray]) -> Any:
    out = _received(ctx, operands, permute_table(ctx, "C6"))
    return out[0] if len(out) == 1 else tuple(out)


@evaluator("CollectiveBroadcast")
def collective_broadcast(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    return _received(ctx, [operand], broadcast_table(ctx))[0]


@evaluator("Send")
def send(ctx: EvaluatorContext, operand: np.ndarray) -> tuple[Any, Any, Any]:
    return post_send(ctx, np.array(operand))


@evaluator("Recv")
def recv(ctx: EvaluatorContext) -> tuple[Any, Any, Any]:
    one_device(ctx)
    data = ctx.shape.tuple_shapes()[0]
    return np.zeros(data.dimensions(), data.numpy_dtype()), REQUEST_ID, TOKEN


@evaluator("SendDone")
def send_done(ctx: EvaluatorContext, context: Any) -> Any:
    return TOKEN


@evaluator("RecvDone")
def recv_done(ctx: EvaluatorContext, context: Any) -> tuple[Any, Any]:
    return take_received(ctx, context[0]), TOKEN
