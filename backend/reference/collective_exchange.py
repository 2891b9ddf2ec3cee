"""Reference evaluators of AllGather, ReduceScatter, AllToAll and RaggedAllToAll.

Each device (one thread) checks the groups against the device count, hands its operand to the rendezvous
(``ctx.devices.exchange``), gets every device's operand back in device order and computes its own result
from the members of its group, in group order.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from backend import etypes
from backend.collectives import group_of
from backend.computations import binary_reducer_name
from backend.reference import evaluator, implementation_defined
from backend.reference.allowed import Allowed
from backend.rules.collective_exchange import exchange_groups


def _my_group(ctx: Any, size: int, size_name: str, constraint: str) -> tuple[list[int], int]:
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
def all_gather(ctx: Any, operand: np.ndarray) -> np.ndarray:
    group, _ = _my_group(ctx, ctx.attr("shard_count"), "shard_count", "C9")
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    return _concatenate([values[d] for d in group], ctx.attr("all_gather_dimension"))


def fold_in_group_order(ctx: Any, values: list[np.ndarray]) -> np.ndarray:
    """f(f(x_0, x_1), x_2) ... with the op's computation, element-wise on whole arrays."""
    acc = values[0]
    with np.errstate(all="ignore"):
        for x in values[1:]:
            acc = np.asarray(ctx.call(ctx.attr("computation"), [acc, x])).astype(acc.dtype)
    return acc


@evaluator("ReduceScatter")
def reduce_scatter(ctx: Any, operand: Any) -> Any:
    shards = ctx.attr("shard_count")
    group, position = _my_group(ctx, shards, "shard_count", "C11")
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    dim = ctx.attr("scatter_dimension")
    parts = range(len(operand)) if isinstance(operand, tuple) else [None]
    results = []
    for k in parts:
        members = [values[d] if k is None else values[d][k] for d in group]
        results.append(_piece(fold_in_group_order(ctx, members), dim, position, shards))
    return tuple(results) if isinstance(operand, tuple) else results[0]


@evaluator("AllToAll")
def all_to_all(ctx: Any, operand: np.ndarray) -> np.ndarray:
    count = ctx.attr("split_count")
    group, position = _my_group(ctx, count, "split_count", "C9")
    values = ctx.devices.exchange(operand, ctx.inst.opcode)
    split = ctx.attr("split_dimension")
    return _concatenate([_piece(values[d], split, position, count) for d in group], ctx.attr("concat_dimension"))


@evaluator("RaggedAllToAll")
def ragged_all_to_all(ctx: Any, input: np.ndarray, input_offsets: np.ndarray, send_sizes: np.ndarray,
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


#: Reducers whose result does not depend on the order the group's operands are combined in.
_ORDER_FREE = {"max", "min", "and", "or", "xor"}


@implementation_defined("ReduceScatter")
def reduce_scatter_outcomes(ctx: Any, operand: Any) -> dict[str, Allowed]:
    """``reduction_order``: a floating-point or complex result of an order-dependent computation may come from
    any association of the group's shard_count operands: within shard_count rounding steps of the group-order
    fold (relative to the result's magnitude; the operands' own are not known here), NaN where it is NaN."""
    parts = list(operand) if isinstance(operand, tuple) else [operand]
    shards = ctx.attr("shard_count")
    floating = [etypes.is_float(etypes.dtype_to_etype(p.dtype)) or etypes.is_complex(etypes.dtype_to_etype(p.dtype))
                for p in parts]
    applies = shards > 1 and binary_reducer_name(ctx.attr("computation")) not in _ORDER_FREE
    dim = ctx.attr("scatter_dimension")
    masks = []
    for p, is_float in zip(parts, floating):
        shape = list(p.shape)
        shape[dim] //= shards
        masks.append(np.full(shape, applies and is_float))
    eps = max((float(ml_dtypes.finfo(np.real(np.zeros((), p.dtype)).dtype).eps) for p, f in zip(parts, floating)
               if f), default=0.0)

    def any_association(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        a, e = (np.asarray(v).astype(np.complex128) for v in (actual, expected))
        with np.errstate(all="ignore"):
            close = np.abs(a - e) <= 2 * shards * eps * np.abs(e)
        return close | (np.isnan(a) & np.isnan(e)) | (a == e)

    mask = tuple(masks) if isinstance(operand, tuple) else masks[0]
    return {"reduction_order": Allowed(mask, {"any_association": any_association})}
