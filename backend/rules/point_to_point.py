"""Shape rules of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast, Send, Recv, SendDone, RecvDone.

Send and Recv return their HLO context, (data, request id u32[], token); SendDone gives a token and
RecvDone (data, token). SendDone/RecvDone take only a Send's/Recv's result; RecvDone records the Recv's
channel as its ``channel_id`` (as HLO's recv-done), which its evaluator reads.

Builder-time checks only (no device count is known yet); ids out of range are execute-time errors
(backend/reference/point_to_point.py).
"""

from __future__ import annotations

from typing import Any

from backend.etypes import PrimitiveType
from backend.rules import OpContext, shape_rule
from backend.shape import Shape


def check_source_target_pairs(ctx: OpContext) -> None:
    """C1 (ids >= 0), C2 (distinct targets) and C3 (distinct sources) of the permute ops."""
    pairs = ctx.attr("source_target_pairs")
    for i, (source, target) in enumerate(pairs):
        if source < 0 or target < 0:
            raise ctx.fail("C1", f"source_target_pairs[{i}] = ({source}, {target}) has a negative id",
                           "source_target_pairs", pair=(source, target), index=i)
    for position, name, constraint in ((1, "target", "C2"), (0, "source", "C3")):
        seen: dict[int, int] = {}
        for i, pair in enumerate(pairs):
            if pair[position] in seen:
                raise ctx.fail(constraint, f"source_target_pairs[{seen[pair[position]]}] and [{i}] have the same "
                               f"{name} {pair[position]}", "source_target_pairs", **{name: pair[position]},
                               pairs=[list(p) for p in pairs])
            seen[pair[position]] = i


@shape_rule("CollectivePermute")
def collective_permute(ctx: OpContext) -> Shape:
    check_source_target_pairs(ctx)
    return ctx.shape("operand")


@shape_rule("MultiCollectivePermute")
def multi_collective_permute(ctx: OpContext) -> Shape:
    shapes = ctx.shape("operands")  # never empty: an empty list names no builder (an arg-type error)
    check_source_target_pairs(ctx)
    return shapes[0] if len(shapes) == 1 else Shape.tuple_shape(list(shapes))


@shape_rule("CollectiveBroadcast")
def collective_broadcast(ctx: OpContext) -> Shape:
    for i, group in enumerate(ctx.attr("replica_groups")):
        if not group.replica_ids:
            raise ctx.fail("C2", f"replica_groups[{i}] is empty: a group broadcasts from its first id",
                           "replica_groups", index=i)
    return ctx.shape("operand")


def _context(data: Shape) -> Shape:
    return Shape.tuple_shape([data, Shape.array_shape(PrimitiveType.U32, ()), Shape.token_shape()])


def _check_handle(ctx: OpContext) -> int:
    handle = ctx.attr("handle")
    if handle is None:
        raise ctx.fail("C1", "Send and Recv need a channel handle (a ChannelHandle or a positive integer)", "handle")
    return handle


@shape_rule("Send")
def send(ctx: OpContext) -> Shape:
    _check_handle(ctx)
    return _context(ctx.shape("operand"))


@shape_rule("Recv")
def recv(ctx: OpContext) -> Shape:
    _check_handle(ctx)
    shape = ctx.attr("shape")
    if not shape.is_array():
        raise ctx.fail("C2", f"Recv receives an array, got the shape {shape}", "shape", shape=str(shape))
    return _context(shape)


def _started_by(ctx: OpContext, opcode: str) -> Any:
    producer = ctx.producer("context")
    if producer.opcode != opcode:
        raise ctx.fail("C1", f"the context must be the result of a {opcode}, got that of a {producer.opcode} "
                       f"({ctx.shape('context')})", "context", context=str(ctx.shape("context")))
    return producer


@shape_rule("SendDone")
def send_done(ctx: OpContext) -> Shape:
    ctx.attrs["channel_id"] = _started_by(ctx, "Send").attrs["handle"]
    return Shape.token_shape()


@shape_rule("RecvDone")
def recv_done(ctx: OpContext) -> Shape:
    ctx.attrs["channel_id"] = _started_by(ctx, "Recv").attrs["handle"]
    return Shape.tuple_shape([ctx.shape("context").tuple_shapes()[0], Shape.token_shape()])
