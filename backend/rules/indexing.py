"""Shape rules of Gather and Scatter, and the index arithmetic their evaluators share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backend.hlo.attribute_types import GatherDimensionNumbers, ScatterDimensionNumbers
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule

DN = "dimension_numbers"


def _check_dims(ctx: OpContext, cid: str, field: str, dims: Sequence[int], bound: int, ascending: bool) -> None:
    """``dims`` lie in ``[0, bound)``, do not repeat, and (if ``ascending``) are sorted."""
    for d in dims:
        if not 0 <= d < bound:
            raise ctx.fail(cid, f"{field} {list(dims)}: dimension {d} is out of range [0, {bound})", DN,
                           **{field: list(dims)})
    if len(set(dims)) != len(dims):
        raise ctx.fail(cid, f"{field} {list(dims)} repeats a dimension", DN, **{field: list(dims)})
    if ascending and list(dims) != sorted(dims):
        raise ctx.fail(cid, f"{field} {list(dims)} must be in ascending order", DN, **{field: list(dims)})


def index_batch_sizes(indices: Shape, index_vector_dim: int) -> list[int]:
    """The sizes of the indices' dimensions other than index_vector_dim (the batch of index vectors)."""
    return [s for d, s in enumerate(indices.dimensions()) if d != index_vector_dim]


def index_vector_size(indices: Shape, index_vector_dim: int) -> int:
    """The length of an index vector: 1 when index_vector_dim is the (implicit) trailing dimension."""
    return 1 if index_vector_dim == indices.rank() else indices.dimensions()[index_vector_dim]


def _check_index_vector_dim(ctx: OpContext, cid: str, indices: Shape, ivd: int) -> None:
    if not 0 <= ivd <= indices.rank():
        raise ctx.fail(cid, f"index_vector_dim {ivd} is out of range [0, {indices.rank()}] for indices {indices}",
                       DN, index_vector_dim=ivd)


def _check_batching(ctx: OpContext, cid: str, names: tuple[str, str], dims: tuple[Sequence[int], Sequence[int]],
                    shapes: tuple[Shape, Shape], ivd: int, excluded: Sequence[int]) -> None:
    """Operand batching dims (sorted, unique, in range, not in ``excluded``) paired with indices batching dims
    (unique, in range, not index_vector_dim) of the same sizes."""
    operand_dims, index_dims = dims
    operand, indices = shapes
    _check_dims(ctx, cid, names[0], operand_dims, operand.rank(), ascending=True)
    _check_dims(ctx, cid, names[1], index_dims, indices.rank(), ascending=False)
    if set(operand_dims) & set(excluded):
        raise ctx.fail(cid, f"{names[0]} {list(operand_dims)} overlaps {list(excluded)}", DN)
    if ivd in index_dims:
        raise ctx.fail(cid, f"{names[1]} {list(index_dims)} contains index_vector_dim {ivd}", DN)
    if len(operand_dims) != len(index_dims):
        raise ctx.fail(cid, f"{names[0]} {list(operand_dims)} and {names[1]} {list(index_dims)} differ in length", DN)
    for od, idim in zip(operand_dims, index_dims):
        if operand.dimensions()[od] != indices.dimensions()[idim]:
            raise ctx.fail(cid, f"batching dimension {od} of the operand has size {operand.dimensions()[od]} but "
                           f"dimension {idim} of the indices has size {indices.dimensions()[idim]}", DN)


def _check_index_map(ctx: OpContext, cid: str, field: str, index_map: Sequence[int], indices: Shape, ivd: int,
                     operand: Shape, batching: Sequence[int]) -> None:
    n = index_vector_size(indices, ivd)
    if len(index_map) != n:
        raise ctx.fail(cid, f"{field} has {len(index_map)} entries but index vectors (dimension {ivd} of "
                       f"{indices}) have {n}", DN, **{field: list(index_map)})
    _check_dims(ctx, cid, field, index_map, operand.rank(), ascending=False)
    if set(index_map) & set(batching):
        raise ctx.fail(cid, f"{field} {list(index_map)} maps to a batching dimension {list(batching)}", DN)


@shape_rule("Gather")
def gather(ctx: OpContext) -> Shape:
    operand, indices = ctx.shape("operand"), ctx.shape("start_indices")
    dn: GatherDimensionNumbers = ctx.attr(DN)
    sizes = ctx.attr("slice_sizes")
    ivd = dn.index_vector_dim
    _check_index_vector_dim(ctx, "C2", indices, ivd)
    batch = index_batch_sizes(indices, ivd)
    out_rank = len(batch) + len(dn.offset_dims)
    _check_dims(ctx, "C3", "offset_dims", dn.offset_dims, out_rank, ascending=True)
    _check_dims(ctx, "C4", "collapsed_slice_dims", dn.collapsed_slice_dims, operand.rank(), ascending=True)
    _check_batching(ctx, "C5", ("operand_batching_dims", "start_indices_batching_dims"),
                    (dn.operand_batching_dims, dn.start_indices_batching_dims), (operand, indices), ivd,
                    dn.collapsed_slice_dims)
    if operand.rank() != len(dn.offset_dims) + len(dn.collapsed_slice_dims) + len(dn.operand_batching_dims):
        raise ctx.fail("C6", f"operand rank {operand.rank()} must equal offset_dims.size {len(dn.offset_dims)} + "
                       f"collapsed_slice_dims.size {len(dn.collapsed_slice_dims)} + operand_batching_dims.size "
                       f"{len(dn.operand_batching_dims)}", DN, operand=str(operand))
    if len(sizes) != operand.rank() or any(not 0 <= s <= b for s, b in zip(sizes, operand.dimensions())):
        raise ctx.fail("C7", f"slice_sizes {list(sizes)} must have one size in [0, bound] per dimension of "
                       f"operand {operand}", "slice_sizes", slice_sizes=list(sizes))
    for d in list(dn.collapsed_slice_dims) + list(dn.operand_batching_dims):
        if sizes[d] != 1:
            raise ctx.fail("C8", f"slice_sizes[{d}] is {sizes[d]}, but collapsed and batching dimensions must "
                           "have slice size 1", "slice_sizes", slice_sizes=list(sizes))
    _check_index_map(ctx, "C9", "start_index_map", dn.start_index_map, indices, ivd, operand,
                     dn.operand_batching_dims)
    window = [s for d, s in enumerate(sizes) if d not in dn.collapsed_slice_dims + dn.operand_batching_dims]
    dims, batch_it, window_it = [], iter(batch), iter(window)
    for d in range(out_rank):
        dims.append(next(window_it) if d in dn.offset_dims else next(batch_it))
    return Shape.array_shape(operand.element_type(), dims)


def _check_scatter_arity(ctx: OpContext) -> tuple[list[Shape], list[Shape]]:
    operands, updates = ctx.shape("operands"), ctx.shape("updates")
    if not operands or len(updates) != len(operands):
        raise ctx.fail("C2", f"need N >= 1 operands and as many updates, got {len(operands)} operands and "
                       f"{len(updates)} updates", "updates")
    for group, name in ((operands, "operands"), (updates, "updates")):
        if any(s.dimensions() != group[0].dimensions() for s in group):
            raise ctx.fail("C2", f"all {name} must have the same dimensions, got {[str(s) for s in group]}", name)
    return operands, updates


def _check_update_bounds(ctx: OpContext, operand: Shape, updates: Shape, indices: Shape,
                         dn: ScatterDimensionNumbers) -> None:
    window_operand_dims = scatter_window_operand_dims(dn, operand.rank())
    for ud, od in zip(dn.update_window_dims, window_operand_dims):
        if updates.dimensions()[ud] > operand.dimensions()[od]:
            raise ctx.fail("C10", f"update window dimension {ud} has bound {updates.dimensions()[ud]}, more than "
                           f"operand dimension {od} ({operand.dimensions()[od]})", "updates", updates=str(updates))
    scatter_dims = [d for d in range(updates.rank()) if d not in dn.update_window_dims]
    batch = index_batch_sizes(indices, dn.index_vector_dim)
    for ud, size in zip(scatter_dims, batch):
        if updates.dimensions()[ud] != size:
            raise ctx.fail("C11", f"update scatter dimension {ud} has bound {updates.dimensions()[ud]}, but the "
                           f"matching scatter_indices dimension has {size}", "updates", updates=str(updates),
                           scatter_indices=str(indices))


def _check_update_computation(ctx: OpContext, operands: list[Shape]) -> None:
    comp = ctx.attr("update_computation")
    program = comp.program_shape()
    scalars = [Shape.scalar_shape(s.element_type()) for s in operands]
    want_result = scalars[0] if len(scalars) == 1 else Shape.tuple_shape(scalars)
    if list(program.parameter_shapes()) != scalars + scalars or program.result_shape() != want_result:
        raise ctx.fail("C12", f"update_computation '{comp.name}' is {program}, but needs "
                       f"({', '.join(str(s) for s in scalars + scalars)}) -> {want_result}", "update_computation")


def scatter_window_operand_dims(dn: ScatterDimensionNumbers, rank: int) -> list[int]:
    """The operand dimensions update_window_dims map to, in order (window_dims_to_operand_dims)."""
    return [d for d in range(rank) if d not in dn.inserted_window_dims and d not in dn.input_batching_dims]


@shape_rule("Scatter")
def scatter(ctx: OpContext) -> Shape:
    operands, updates = _check_scatter_arity(ctx)
    operand, update, indices = operands[0], updates[0], ctx.shape("scatter_indices")
    dn: ScatterDimensionNumbers = ctx.attr(DN)
    ivd = dn.index_vector_dim
    _check_index_vector_dim(ctx, "C3", indices, ivd)
    _check_dims(ctx, "C4", "update_window_dims", dn.update_window_dims, update.rank(), ascending=True)
    _check_dims(ctx, "C5", "inserted_window_dims", dn.inserted_window_dims, operand.rank(), ascending=True)
    _check_batching(ctx, "C6", ("input_batching_dims", "scatter_indices_batching_dims"),
                    (dn.input_batching_dims, dn.scatter_indices_batching_dims), (operand, indices), ivd,
                    dn.inserted_window_dims)
    if operand.rank() != len(dn.update_window_dims) + len(dn.inserted_window_dims) + len(dn.input_batching_dims):
        raise ctx.fail("C7", f"operand rank {operand.rank()} must equal update_window_dims.size "
                       f"{len(dn.update_window_dims)} + inserted_window_dims.size {len(dn.inserted_window_dims)} + "
                       f"input_batching_dims.size {len(dn.input_batching_dims)}", DN, operand=str(operand))
    _check_index_map(ctx, "C8", "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims, indices, ivd,
                     operand, dn.input_batching_dims)
    want_rank = len(dn.update_window_dims) + len(index_batch_sizes(indices, ivd))
    if update.rank() != want_rank:
        raise ctx.fail("C9", f"updates have rank {update.rank()}, but update_window_dims.size + "
                       f"scatter_indices.rank - 1 is {want_rank}", "updates", updates=str(update))
    _check_update_bounds(ctx, operand, update, indices, dn)
    _check_update_computation(ctx, operands)
    if len(operands) == 1:
        return operand
    return Shape.tuple_shape(operands)


def returns_second_parameter(computation: Any) -> bool:
    """A "replace" update computation: two parameters, and the root is the second one."""
    params = computation.parameters
    return len(params) == 2 and computation.root == params[1].id
