"""Shape rules of the point-to-point collectives: CollectivePermute, MultiCollectivePermute,
CollectiveBroadcast, Send, Recv, SendDone, RecvDone.

Send and Recv return their HLO context, (data, request id u32[], token); SendDone gives a token and
RecvDone (data, token).

Builder-time checks only (no device count is known yet); ids out of range are execute-time errors
(backend/reference/point_to_point.py).
"""

from __future__ import annotations

from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


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


_U32 = Shape.array_shape(PrimitiveType.U32, ())


def _context(data: Shape) -> Shape:
    return Shape.tuple_shape([data, _U32, Shape.token_shape()])


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


def _context_data(ctx: OpContext, start: str) -> Shape:
    """The data shape of a ``start`` (Send/Recv) context (data array, u32[], token), else C1. (A context straight
    from a ``start`` gets its channel as ``channel_id`` from the ops layer, :mod:`backend.surface.defaults`.)"""
    shape = ctx.shape("context")
    parts = shape.tuple_shapes() if shape.is_tuple() else ()
    if len(parts) != 3 or not parts[0].is_array() or parts[1] != _U32 or not parts[2].is_token():
        raise ctx.fail("C1", f"the context must be a {start}'s result (data array, u32[], token), got {shape}",
                       "context", context=str(shape))
    producer = ctx.producer("context")
    other = {"Send": "Recv", "Recv": "Send"}[start]
    if producer.opcode == other:
        raise ctx.fail("C1", f"the context is a {other}'s result: {ctx.op} completes a {start}", "context",
                       context=str(shape))
    return parts[0]


@shape_rule("SendDone")
def send_done(ctx: OpContext) -> Shape:
    _context_data(ctx, "Send")
    return Shape.token_shape()


@shape_rule("RecvDone")
def recv_done(ctx: OpContext) -> Shape:
    return Shape.tuple_shape([_context_data(ctx, "Recv"), Shape.token_shape()])
