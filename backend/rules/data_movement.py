"""Shape rules of the data-movement ops: Reshape, Collapse, Transpose, Rev, ConcatInDim, Pad."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.hlo import etypes
from backend.hlo.shape import Layout, Shape
from backend.rules import OpContext, shape_rule


def _is_permutation(values: Sequence[int], rank: int) -> bool:
    return sorted(values) == list(range(rank))


def _element_count(dims: Sequence[int]) -> int:
    count = 1
    for d in dims:
        count *= d
    return count


def _check_dimension_numbers(ctx: OpContext, arg: str, dims: Sequence[int], rank: int, range_id: str,
                             repeat_id: str) -> None:
    """Each of ``dims`` is a dimension of a rank-``rank`` operand, none repeated."""
    for d in dims:
        if not 0 <= d < rank:
            raise ctx.fail(range_id, f"dimension {d} in {arg} {list(dims)} is out of range [0, {rank})", arg,
                           **{arg: list(dims)}, rank=rank)
    if len(set(dims)) != len(dims):
        raise ctx.fail(repeat_id, f"{arg} {list(dims)} repeats a dimension", arg, **{arg: list(dims)})


def reshape_sizes(ctx: Any) -> tuple[tuple[int, ...] | None, tuple[int, ...], Shape | None]:
    """Reshape's (transpose-first permutation or None, new sizes, explicit result shape or None), from
    its attributes; ``ctx`` is the shape rule's context or an evaluator's (anything with ``attr``)."""
    dimensions, new_sizes, shape = ctx.attr("dimensions"), ctx.attr("new_sizes"), ctx.attr("shape")
    if shape is not None:
        if dimensions is not None or new_sizes is not None:
            raise ctx.fail("C1", "give the result either as shape or as dimensions/new_sizes, not both", "shape",
                           shape=str(shape), dimensions=dimensions, new_sizes=new_sizes)
        if not shape.is_array():
            raise ctx.fail("C5", f"shape must be an array shape, got {shape}", "shape", shape=str(shape))
        return None, shape.dimensions(), shape
    if new_sizes is None:
        if dimensions is None:
            raise ctx.fail("C1", "no result size given: pass the new sizes as dimensions (Reshape(operand, sizes)) "
                           "or new_sizes, or a shape", "dimensions")
        return None, dimensions, None
    return dimensions, new_sizes, None


@shape_rule("Reshape")
def reshape(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    permutation, sizes, shape = reshape_sizes(ctx)
    if permutation is not None and not _is_permutation(permutation, operand.rank()):
        raise ctx.fail("C4", f"dimensions {list(permutation)} must be a permutation of 0..{operand.rank() - 1} "
                       f"(the order in which to read operand {operand})", "dimensions",
                       dimensions=list(permutation), operand=str(operand))
    if any(d < 0 for d in sizes):
        raise ctx.fail("C2", f"new sizes must be >= 0, got {list(sizes)}", "new_sizes", new_sizes=list(sizes))
    if _element_count(sizes) != operand.element_count():
        raise ctx.fail("C3", f"new sizes {list(sizes)} hold {_element_count(sizes)} elements, operand {operand} "
                       f"holds {operand.element_count()}", "new_sizes", new_sizes=list(sizes), operand=str(operand))
    if shape is not None:
        if shape.element_type() != operand.element_type():
            raise ctx.fail("C5", f"shape {shape} must have the operand's element type "
                           f"{etypes.short_name(operand.element_type())}", "shape", shape=str(shape))
        return shape
    return Shape.array_shape(operand.element_type(), sizes)


@shape_rule("Collapse")
def collapse(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    dims = ctx.attr("dimensions")
    _check_dimension_numbers(ctx, "dimensions", dims, operand.rank(), "C1", "C2")
    if any(b != a + 1 for a, b in zip(dims, dims[1:])):
        raise ctx.fail("C2", f"dimensions {list(dims)} must be consecutive and increasing (like {{0, 1}} or "
                       "{1, 2}, not {1, 0} or {0, 2})", "dimensions", dimensions=list(dims))
    if len(dims) <= 1:  # nothing to merge: XLA returns the operand
        return operand
    sizes, dynamic = operand.dimensions(), operand.dynamic_dimensions()
    first, last = dims[0], dims[-1] + 1
    merged = _element_count(sizes[first:last])
    return Shape.array_shape(operand.element_type(), sizes[:first] + (merged,) + sizes[last:],
                             dynamic_dimensions=dynamic[:first] + (any(dynamic[first:last]),) + dynamic[last:])


def transposed_layout(operand: Shape, permutation: Sequence[int]) -> Layout:
    """The result layout that keeps the operand's memory order (the transpose is then a bitcast),
    as XLA's ShapeUtil::PermuteDimensions chooses it: result dimension i is operand dimension
    permutation[i], so operand dimension d becomes result dimension inverse[d]."""
    inverse = [0] * len(permutation)
    for i, d in enumerate(permutation):
        inverse[d] = i
    return Layout(tuple(inverse[d] for d in operand.layout().minor_to_major))


@shape_rule("Transpose")
def transpose(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    perm = ctx.attr("permutation")
    if len(perm) != operand.rank():
        raise ctx.fail("C1", f"permutation {list(perm)} must have one entry per operand dimension (rank "
                       f"{operand.rank()})", "permutation", permutation=list(perm), operand=str(operand))
    if not _is_permutation(perm, operand.rank()):
        raise ctx.fail("C2", f"permutation {list(perm)} must be a permutation of 0..{operand.rank() - 1}",
                       "permutation", permutation=list(perm))
    dims = tuple(operand.dimensions()[d] for d in perm)
    dynamic = tuple(operand.dynamic_dimensions()[d] for d in perm)
    return Shape.array_shape(operand.element_type(), dims, transposed_layout(operand, perm), dynamic)


@shape_rule("Rev")
def rev(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    _check_dimension_numbers(ctx, "dimensions", ctx.attr("dimensions"), operand.rank(), "C1", "C2")
    return operand


@shape_rule("ConcatInDim")
def concat_in_dim(ctx: OpContext) -> Shape:
    shapes = ctx.shape("operands")
    dim = ctx.attr("dimension")
    if not shapes:
        raise ctx.fail("C1", "ConcatInDim needs at least one operand", "operands")
    first = shapes[0]
    if first.rank() == 0:
        raise ctx.fail("C3", f"scalars cannot be concatenated (there is no dimension to join them in), got {first}",
                       "operands", operands=[str(s) for s in shapes])
    for i, s in enumerate(shapes[1:], start=1):
        if s.rank() != first.rank():
            raise ctx.fail("C4", f"operands must have the same rank, operand 0 is {first} and operand {i} is {s}",
                           "operands", operands=[str(s) for s in shapes])
    if not 0 <= dim < first.rank():
        raise ctx.fail("C5", f"dimension {dim} is out of range [0, {first.rank()})", "dimension", dimension=dim,
                       rank=first.rank())
    for i, s in enumerate(shapes[1:], start=1):
        for d, (a, b) in enumerate(zip(first.dimensions(), s.dimensions())):
            if d != dim and a != b:
                raise ctx.fail("C6", f"operands must match in every dimension but {dim}: operand 0 is {first}, "
                               f"operand {i} is {s} (dimension {d})", "operands",
                               operands=[str(s) for s in shapes], dimension=dim)
    dims = list(first.dimensions())
    dims[dim] = sum(s.dimensions()[dim] for s in shapes)
    dynamic = [any(s.dynamic_dimensions()[d] for s in shapes) for d in range(first.rank())]
    return Shape.array_shape(first.element_type(), dims, dynamic_dimensions=dynamic)


def padded_size(size: int, low: int, high: int, interior: int) -> int:
    """The size of a dimension after interior padding, then edge padding (negative edges remove)."""
    return low + high + size + max(size - 1, 0) * interior


@shape_rule("Pad")
def pad(ctx: OpContext) -> Shape:
    operand, value = ctx.shape("operand"), ctx.shape("padding_value")
    triples = ctx.attr("padding_config").triples()
    if value.rank() != 0:
        raise ctx.fail("C4", f"padding_value must be a scalar, got {value}", "padding_value",
                       padding_value=str(value))
    if len(triples) != operand.rank():
        raise ctx.fail("C1", f"padding_config has {len(triples)} entries, the operand {operand} has rank "
                       f"{operand.rank()}", "padding_config", padding_config=[list(t) for t in triples])
    for d, (_, _, interior) in enumerate(triples):
        if interior < 0:
            raise ctx.fail("C2", f"interior padding must be >= 0, got {interior} in dimension {d}", "padding_config",
                           padding_config=[list(t) for t in triples], dimension=d)
    dims = [padded_size(size, *t) for size, t in zip(operand.dimensions(), triples)]
    for d, size in enumerate(dims):
        if size < 0:
            raise ctx.fail("C3", f"dimension {d} would have negative size {size} (operand {operand}, padding "
                           f"{list(triples[d])})", "padding_config", padding_config=[list(t) for t in triples],
                           dimension=d)
    return Shape.array_shape(operand.element_type(), dims, dynamic_dimensions=operand.dynamic_dimensions())
