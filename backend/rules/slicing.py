"""Shape rules of Slice, SliceInDim, DynamicSlice and DynamicUpdateSlice.

Slice and SliceInDim share one per-dimension check (C2: 0 <= start <= limit, C3: limit <= size,
C4: stride >= 1) and one result-size formula; DynamicSlice and DynamicUpdateSlice share the check
of their start indices (one integer scalar per operand dimension, C2).
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


def sliced_size(start: int, limit: int, stride: int) -> int:
    """The number of elements start, start + stride, ... below limit: ceil((limit - start) / stride)."""
    return (limit - start + stride - 1) // stride


def slice_in_dim_bounds(dims: Sequence[int], start: int, limit: int, stride: int,
                        dimno: int) -> tuple[list[int], list[int], list[int]]:
    """SliceInDim as a Slice: the whole of every dimension but ``dimno``."""
    starts, limits, strides = [0] * len(dims), list(dims), [1] * len(dims)
    starts[dimno], limits[dimno], strides[dimno] = start, limit, stride
    return starts, limits, strides


def _check_dimension(ctx: OpContext, d: int, size: int, start: int, limit: int, stride: int,
                     names: tuple[str, str, str]) -> None:
    """C2, C3 and C4 of Slice / SliceInDim for operand dimension ``d`` of bound ``size``."""
    start_name, limit_name, stride_name = names
    if start < 0:
        raise ctx.fail("C2", f"start index {start} of dimension {d} is negative", start_name, dimension=d,
                       start=start)
    if start > limit:
        raise ctx.fail("C2", f"start index {start} of dimension {d} is greater than its limit index {limit}",
                       start_name, dimension=d, start=start, limit=limit)
    if limit > size:
        raise ctx.fail("C3", f"limit index {limit} of dimension {d} is greater than the dimension's size {size}",
                       limit_name, dimension=d, limit=limit, size=size)
    if stride < 1:
        raise ctx.fail("C4", f"stride {stride} of dimension {d} must be >= 1", stride_name, dimension=d,
                       stride=stride)


@shape_rule("Slice")
def slice_rule(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    starts, limits = ctx.attr("start_indices"), ctx.attr("limit_indices")
    strides = ctx.attr("strides")
    strides = (1,) * operand.rank() if strides is None else strides
    for name, values in (("start_indices", starts), ("limit_indices", limits), ("strides", strides)):
        if len(values) != operand.rank():
            raise ctx.fail("C1", f"{name} {list(values)} has {len(values)} entries, but operand {operand} has rank "
                           f"{operand.rank()}", name, **{name: list(values)})
    for d, size in enumerate(operand.dimensions()):
        _check_dimension(ctx, d, size, starts[d], limits[d], strides[d],
                         ("start_indices", "limit_indices", "strides"))
    dims = [sliced_size(s, lim, st) for s, lim, st in zip(starts, limits, strides)]
    return Shape.array_shape(operand.element_type(), dims)


@shape_rule("SliceInDim")
def slice_in_dim(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    start, limit, stride, dimno = (ctx.attr(n) for n in ("start_index", "limit_index", "stride", "dimno"))
    if not 0 <= dimno < operand.rank():
        raise ctx.fail("C1", f"dimno {dimno} is out of range [0, {operand.rank()}) for operand {operand}", "dimno",
                       dimno=dimno, operand=str(operand))
    _check_dimension(ctx, dimno, operand.dimensions()[dimno], start, limit, stride,
                     ("start_index", "limit_index", "stride"))
    dims = list(operand.dimensions())
    dims[dimno] = sliced_size(start, limit, stride)
    return Shape.array_shape(operand.element_type(), dims)


def _check_start_indices(ctx: OpContext, operand: Shape) -> None:
    """C2 of DynamicSlice / DynamicUpdateSlice: one scalar start index per operand dimension."""
    starts = ctx.shape("start_indices")
    if len(starts) != operand.rank():
        raise ctx.fail("C2", f"got {len(starts)} start indices, but operand {operand} has rank {operand.rank()}",
                       "start_indices", start_indices=[str(s) for s in starts])
    for k, s in enumerate(starts):
        if s.rank() != 0:
            raise ctx.fail("C2", f"start index {k} must be a scalar, got {s}", "start_indices",
                           start_indices=[str(s) for s in starts])


@shape_rule("DynamicSlice")
def dynamic_slice(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    sizes = ctx.attr("slice_sizes")
    _check_start_indices(ctx, operand)
    if len(sizes) != operand.rank():
        raise ctx.fail("C3", f"slice_sizes {list(sizes)} has {len(sizes)} entries, but operand {operand} has rank "
                       f"{operand.rank()}", "slice_sizes", slice_sizes=list(sizes))
    for d, (size, bound) in enumerate(zip(sizes, operand.dimensions())):
        if not 0 <= size <= bound:
            raise ctx.fail("C3", f"slice size {size} of dimension {d} is outside [0, {bound}] (operand {operand})",
                           "slice_sizes", slice_sizes=list(sizes))
    return Shape.array_shape(operand.element_type(), sizes)


@shape_rule("DynamicUpdateSlice")
def dynamic_update_slice(ctx: OpContext) -> Shape:
    operand, update = ctx.shape("operand"), ctx.shape("update")
    _check_start_indices(ctx, operand)
    if update.rank() != operand.rank():
        raise ctx.fail("C3", f"update {update} has rank {update.rank()}, but operand {operand} has rank "
                       f"{operand.rank()}", "update", update=str(update), operand=str(operand))
    for d, (size, bound) in enumerate(zip(update.dimensions(), operand.dimensions())):
        if size > bound:
            raise ctx.fail("C3", f"update dimension {d} has size {size}, more than the operand's {bound}", "update",
                           update=str(update), operand=str(operand))
    return operand
