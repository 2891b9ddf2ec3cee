"""Shape rules of the higher-order ops: Map, Scan, Sort and TopK.

Each takes a sub-computation (Map's scalar function, Scan's step, Sort's comparator) whose
parameters are checked against the operands, or (TopK) a fixed ordering.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.builder import XlaBuilder, XlaComputation
from backend.errors import OpError
from backend.etypes import PrimitiveType
from backend.rules import OpContext, shape_rule
from backend.shape import Shape


def _nonempty(ctx: OpContext, arg: str, cid: str = "arg-type") -> list[Shape]:
    """The shapes of a variadic argument that needs at least one operand (none can reach the rule when
    another argument or xla_client's leading builder names the builder)."""
    shapes = list(ctx.shape(arg))
    if not shapes:
        raise OpError(ctx.op, cid, f"'{arg}' needs at least one operand", arg)
    return shapes


def _same_dimensions(ctx: OpContext, cid: str, arg: str, shapes: Sequence[Shape]) -> None:
    for i, s in enumerate(shapes[1:], 1):
        if s.dimensions() != shapes[0].dimensions():
            raise ctx.fail(cid, f"{arg}[{i}] has dimensions {list(s.dimensions())}, {arg}[0] has "
                           f"{list(shapes[0].dimensions())}", arg, **{f"{arg}0": str(shapes[0]), f"{arg}{i}": str(s)})


def _scalars(shapes: Sequence[Shape]) -> list[Shape]:
    return [Shape.scalar_shape(s.element_type()) for s in shapes]


def _signature(comp: XlaComputation) -> str:
    program = comp.program_shape()
    return f"({', '.join(str(p) for p in program.parameter_shapes())}) -> {program.result_shape()}"


@shape_rule("Map")
def map_(ctx: OpContext) -> Shape:
    operands = _nonempty(ctx, "operands", "C2")
    static = list(ctx.shape("static_operands"))
    _same_dimensions(ctx, "C2", "operands", operands)
    rank = operands[0].rank()
    dimensions = list(ctx.attr("dimensions"))
    if dimensions != list(range(rank)):
        raise ctx.fail("C3", f"dimensions must be [0, ..., rank - 1] = {list(range(rank))} (every operand dimension, in "
                       f"order), got {dimensions}", "dimensions", dimensions=dimensions)
    comp: XlaComputation = ctx.attr("computation")
    params = list(comp.program_shape().parameter_shapes())
    wanted = _scalars(operands) + static
    if params != wanted:
        raise ctx.fail("C4", f"computation '{comp.name}' is {_signature(comp)}, but needs parameters "
                       f"({', '.join(str(s) for s in wanted)}): one scalar per operand, then the static operands",
                       "computation", parameters=[str(p) for p in params], needed=[str(s) for s in wanted])
    result = comp.program_shape().result_shape()
    if not result.is_array() or result.rank() != 0:
        raise ctx.fail("C5", f"computation '{comp.name}' must return a scalar, returns {result}", "computation",
                       result=str(result))
    return Shape.array_shape(result.element_type(), operands[0].dimensions(),
                             dynamic_dimensions=operands[0].dynamic_dimensions())


def _without(shape: Shape, dim: int) -> Shape:
    dims = list(shape.dimensions())
    del dims[dim]
    return Shape.array_shape(shape.element_type(), dims)


def _with(shape: Shape, dim: int, size: int) -> Shape:
    dims = list(shape.dimensions())
    dims.insert(dim, size)
    return Shape.array_shape(shape.element_type(), dims)


@shape_rule("Scan")
def scan(ctx: OpContext) -> Shape:
    inputs = _nonempty(ctx, "inputs", "C2")
    inits = list(ctx.shape("inits"))
    d = ctx.attr("scan_dimension")
    for i, s in enumerate(inputs):
        if not 0 <= d < s.rank():
            raise ctx.fail("C2", f"scan_dimension {d} is not a dimension of inputs[{i}] {s}", "scan_dimension",
                           scan_dimension=d, input=str(s))
    size = inputs[0].dimensions()[d]
    for i, s in enumerate(inputs[1:], 1):
        if s.dimensions()[d] != size:
            raise ctx.fail("C3", f"inputs[{i}] {s} has {s.dimensions()[d]} elements along scan_dimension {d}, "
                           f"inputs[0] has {size}", "inputs", size0=size, **{f"size{i}": s.dimensions()[d]})
    comp: XlaComputation = ctx.attr("to_apply")
    program = comp.program_shape()
    params = list(program.parameter_shapes())
    wanted = [_without(s, d) for s in inputs] + inits
    if params != wanted:
        raise ctx.fail("C4", f"to_apply '{comp.name}' is {_signature(comp)}, but needs parameters "
                       f"({', '.join(str(s) for s in wanted)}): one slice of each input (scan_dimension removed), "
                       "then the inits", "to_apply", parameters=[str(p) for p in params],
                       needed=[str(s) for s in wanted])
    result = program.result_shape()
    returned = list(result.tuple_shapes()) if result.is_tuple() else []
    k = len(inits)
    if not result.is_tuple() or len(returned) < k or returned[len(returned) - k:] != inits:
        raise ctx.fail("C5", f"to_apply '{comp.name}' returns {result}, but must return a tuple of n outputs "
                       f"followed by the k = {k} new carries ({', '.join(str(s) for s in inits)})", "to_apply",
                       result=str(result), inits=[str(s) for s in inits])
    outputs = returned[:len(returned) - k]
    for j, o in enumerate(outputs):
        if not o.is_array() or d > o.rank():
            raise ctx.fail("C6", f"output {j} of to_apply '{comp.name}' is {o}: scan_dimension {d} cannot be "
                           "inserted into it", "to_apply", output=str(o), scan_dimension=d)
    return Shape.tuple_shape([_with(o, d, size) for o in outputs] + inits)


def sort_dimension(dimension: int, rank: int) -> int:
    """Sort's dimension with -1 (the default: the last dimension) resolved."""
    return rank - 1 if dimension == -1 else dimension


def default_comparator(operands: Sequence[Shape]) -> XlaComputation:
    """xla_client's default comparator: less-than on the first operand's elements (parameters 0 and 1)."""
    from backend import ops

    sub = XlaBuilder("default_less_than")
    params = [ops.Parameter(sub, i, s, f"p{i}") for i, s in enumerate(x for s in _scalars(operands) for x in (s, s))]
    return sub.build(ops.Lt(params[0], params[1]))


@shape_rule("Sort")
def sort(ctx: OpContext) -> Shape:
    operands = _nonempty(ctx, "operands")
    _same_dimensions(ctx, "C2", "operands", operands)
    rank = operands[0].rank()
    dimension = ctx.attr("dimension")
    if not (dimension == -1 or 0 <= dimension < rank):
        raise ctx.fail("C3", f"dimension must be -1 (the last) or in [0, {rank}), got {dimension}", "dimension",
                       dimension=dimension, rank=rank)
    if rank == 0:
        raise ctx.fail("C3", "a scalar has no dimension to sort along", "operands", operand=str(operands[0]))
    if ctx.attr("comparator") is None:  # xla_client's default: the comparator is built here, so the graph has one
        ctx.attrs["comparator"] = default_comparator(operands)
    comp: XlaComputation = ctx.attr("comparator")
    program = comp.program_shape()
    wanted = [x for s in _scalars(operands) for x in (s, s)]
    result = program.result_shape()
    if list(program.parameter_shapes()) != wanted or result != Shape.scalar_shape(PrimitiveType.PRED):
        raise ctx.fail("C4", f"comparator '{comp.name}' is {_signature(comp)}, but must be "
                       f"({', '.join(str(s) for s in wanted)}) -> pred[] (parameters 2k and 2k+1 are elements of "
                       "operand k)", "comparator", comparator=_signature(comp))
    return operands[0] if len(operands) == 1 else Shape.tuple_shape(operands)


@shape_rule("TopK")
def top_k(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    k = ctx.attr("k")
    if operand.rank() < 1:
        raise ctx.fail("C2", f"the operand must have at least one dimension, got {operand}", "operand",
                       operand=str(operand))
    last = operand.dimensions()[-1]
    if not 0 <= k <= last:
        raise ctx.fail("C3", f"k must be in [0, {last}] (the size of the last dimension), got {k}", "k", k=k,
                       last_dimension=last)
    dims = list(operand.dimensions()[:-1]) + [k]
    return Shape.tuple_shape([Shape.array_shape(operand.element_type(), dims),
                              Shape.array_shape(PrimitiveType.S32, dims)])
