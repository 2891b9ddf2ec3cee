"""Reference evaluators of AllGather, ReduceScatter, AllToAll and RaggedAllToAll.

Each device (one thread) checks the groups against the device count, hands its operand to the rendezvous
(``ctx.devices.exchange``), gets every device's operand back in device order and computes its own result
from the members of its group, in group order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.hlo.device_groups import group_of
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed
from backend.reference.collectives import _fold as fold_in_group_order
from backend.reference.collectives import group_outcomes
from backend.rules.collective_exchange import exchange_groups


def _my_group(ctx: EvaluatorContext, size: int, size_name: str, constraint: str) -> tuple[list[int], int]:
    """This device's group (global device ids, in group order) and its position in it."""
    devices = ctx.devices
    groups = exchange_groups(ctx.inst.opcode, ctx.attrs, devices.replicas, devices.partitions, size, size_name,
                             constraint)
    return group_of(groups, devices.device_id)


def _concatenate(pieces: list[np.ndarray], dim: int) -> np.ndarray:
    return np.concatenate(pieces, axis=dim)


def _piece(x: np.ndarray, dim: int, index: int, count: int) -> np.ndarray:
    size = x.shape[dim] // count
    return np.take(x, np.arange(index * size, (index + 1) * size), axis=dim)


@evaluator("AllGather")
def all_gather(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    group, _ = _my_group(ctx, ctx.attr("shard_count"), "shard_count", "C9")
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    return _concatenate([values[d] for d in group], ctx.attr("all_gather_dimension"))


def _shards(ctx: EvaluatorContext, operand: Any) -> list[Any]:
    """This device's shard of every member of its group (ReduceScatter reduces shard by shard: the
    reduction is element-wise)."""
    shards = ctx.attr("shard_count")
    group, position = _my_group(ctx, shards, "shard_count", "C11")
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    dim = ctx.attr("scatter_dimension")

    def shard(value: Any) -> Any:
        if isinstance(value, tuple):
            return tuple(_piece(v, dim, position, shards) for v in value)
        return _piece(value, dim, position, shards)
    return [shard(values[d]) for d in group]


@evaluator("ReduceScatter")
def reduce_scatter(ctx: EvaluatorContext, operand: Any) -> Any:
    """AllReduce's group-order fold (backend/reference/collectives.py) of this device's shards."""
    return fold_in_group_order(ctx, ctx.attr("computation"), _shards(ctx, operand))


@implementation_defined("ReduceScatter")
def reduce_scatter_outcomes(ctx: EvaluatorContext, operand: Any) -> dict[str, Allowed]:
    """AllReduce's ``reduction_order`` and ``subnormals`` outcomes, over this device's shards."""
    members = _shards(ctx, operand)
    return group_outcomes(ctx, members[0], ctx.attr("computation"), members)


@evaluator("AllToAll")
def all_to_all(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    count = ctx.attr("split_count")
    group, position = _my_group(ctx, count, "split_count", "C9")
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    split = ctx.attr("split_dimension")
    return _concatenate([_piece(values[d], split, position, count) for d in group], ctx.attr("concat_dimension"))


@evaluator("RaggedAllToAll")
def ragged_all_to_all(ctx: EvaluatorContext, input: np.ndarray, input_offsets: np.ndarray, send_sizes: np.ndarray,
                      output: np.ndarray, output_offsets: np.ndarray, recv_sizes: np.ndarray) -> np.ndarray:
    group, position = _my_group(ctx, len(input_offsets), "the index arrays' size", "C7")
    sent = ctx.devices.exchange((input, input_offsets, send_sizes, output_offsets), ctx.inst.opcode)
    result = output.copy()
    rows, out_rows = input.shape[0], output.shape[0]
    for sender in group:  # in group order: a later sender's overlapping segment stays
        data, in_offsets, sizes, out_offsets = sent[sender]
        start, size, at = (int(a[position]) for a in (in_offsets, sizes, out_offsets))
        for k in range(max(size, 0)):  # sub-elements outside input or output are dropped
            if 0 <= start + k < rows and 0 <= at + k < out_rows:
                result[at + k] = data[start + k]
    return result

