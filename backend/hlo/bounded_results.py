"""Computations whose bounded-dynamic values are only results: their static stand-in.

XLA's ``SetDimensionSize(operand, val, dimension)`` gives ``operand`` with ``dimension`` made bounded-dynamic, of
runtime size ``val``. A computation that returns such values (as its root, or as elements of its root tuple) and
reads none of them anywhere else is, up to its results, a static computation: the same one returning ``operand``
and ``val`` in their place. :func:`static_stand_in` gives that computation and, per result, where its value comes
from, so that an exporter that can only lower static programs (jax's, whose arrays have static sizes) lowers the
stand-in and applies StableHLO's ``set_dimension_size`` to its results (``backend.export.stablehlo_text``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from backend.hlo.graph import Instruction, XlaComputation
from backend.hlo.shape import Shape


@dataclasses.dataclass(frozen=True)
class DynamicResult:
    """A result of the original computation that is ``SetDimensionSize(operand, val, dimension)``: the stand-in
    returns ``operand`` then ``val`` in its place. ``shape`` is the bounded-dynamic result's shape."""

    dimension: int
    shape: Shape


@dataclasses.dataclass(frozen=True)
class StaticStandIn:
    """``computation`` (static, the same parameters) returns, for each array result of the original in order, that
    array (``None`` in ``results``) or, for a :class:`DynamicResult`, its operand and its size."""

    computation: XlaComputation
    results: tuple[DynamicResult | None, ...]


def static_stand_in(computation: XlaComputation) -> StaticStandIn | None:
    """The static stand-in of ``computation``, or ``None`` when it has no bounded-dynamic value or reads one (an
    op with a dynamic operand, a dynamic value in a called computation, a dynamic parameter)."""
    if all(i.shape.is_static() for i in computation.instructions) or any(
            not i.shape.is_static() for c in computation.subcomputations() for i in c.instructions):
        return None  # nothing dynamic, or a dynamic value in a called computation
    leaf_ids = list(_leaves(computation, computation.root))
    removed = set(_dynamic_tuples(computation, computation.root)) | {
        i for i in leaf_ids if not computation.instruction(i).shape.is_static()}  # replaced by the stand-in's root
    for inst in computation.instructions:
        if inst.id in removed:
            continue
        if not inst.shape.is_static() or any(not computation.instruction(o).shape.is_static() for o in inst.operands):
            return None  # a dynamic value that is not a result, or one that is read
    leaves: list[int] = []
    results: list[DynamicResult | None] = []
    for leaf in leaf_ids:
        inst = computation.instruction(leaf)
        if inst.shape.is_static():
            leaves.append(leaf)
            results.extend([None] * len(inst.shape.leaf_shapes()))
            continue
        if inst.opcode != "SetDimensionSize" or not all(computation.instruction(o).shape.is_static()
                                                        for o in inst.operands):
            return None  # another op with a dynamic result, or a size set on a dynamic value
        leaves.extend(inst.operands)  # operand, val
        results.append(DynamicResult(int(inst.attrs["dimension"]), inst.shape))
    kept = [i for i in computation.instructions if i.id not in removed]
    shape = Shape.tuple_shape([computation.instruction(i).shape for i in leaves])
    root = Instruction(max(i.id for i in computation.instructions) + 1, "Tuple", tuple(leaves),
                       (("elements", len(leaves)),), {}, shape, "static-results")
    return StaticStandIn(XlaComputation(f"{computation.name}_static", [*kept, root], root.id), tuple(results))


def _dynamic_tuples(computation: XlaComputation, id: int) -> Iterator[int]:
    """The Tuple instructions of dynamic shape that the root is made of (the root itself when it is one)."""
    inst = computation.instruction(id)
    if inst.opcode == "Tuple" and not inst.shape.is_static():
        yield id
        for o in inst.operands:
            yield from _dynamic_tuples(computation, o)


def _leaves(computation: XlaComputation, id: int) -> Iterator[int]:
    """The instructions whose values the root's leaves are, depth-first (a dynamic tuple looked into)."""
    inst = computation.instruction(id)
    if inst.opcode == "Tuple" and not inst.shape.is_static():
        for o in inst.operands:
            yield from _leaves(computation, o)
    else:
        yield id
