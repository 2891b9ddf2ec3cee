"""Shape rules of the higher-order ops: Map, Scan, Sort, TopK, ApproxTopK and ApproxTopKFallback.

Each takes a sub-computation (Map's scalar function, Scan's step, Sort's comparator) whose
parameters are checked against the operands, or (TopK) a fixed ordering.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from backend.errors import OpError
from backend.hlo.etypes import PrimitiveType
from backend.hlo.graph import XlaComputation
from backend.hlo.shape import Shape
from backend.rules import OpContext, resized, shape_rule


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


def scalars(shapes: Sequence[Shape]) -> list[Shape]:
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
    wanted = scalars(operands) + static
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
    comp: XlaComputation | None = ctx.attr("comparator")
    if comp is None:  # xla_client's default, less-than on the first operand: the ops layer adds it (surface.defaults)
        return operands[0] if len(operands) == 1 else Shape.tuple_shape(operands)
    program = comp.program_shape()
    wanted = [x for s in scalars(operands) for x in (s, s)]
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


# --- ApproxTopK ------------------------------------------------------------------------------------

_TPU_LANE_TILING, _TPU_CHUNK_TILING = 128, 1024  # XLA's approx_topk_shape.h: rank >= 2 / rank 1 rows


def _log2_floor(value: int) -> int:
    return value.bit_length() - 1 if value > 0 else 0


def _log2_ceil(value: int) -> int:
    return (value - 1).bit_length() if value > 0 else 0


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def ApproxTopKReductionOutputSize(input_size: int, rank: int, top_k: int, recall_target: float,  # noqa: N802
                                  aggregate_to_topk: bool = True,
                                  input_size_override: int = -1) -> tuple[int, int]:
    """xla_client's ApproxTopKReductionOutputSize: ``(output_size, log2_reduction)`` of ApproxTopK's TPU
    reduction of a row of ``input_size`` elements, as XLA computes it (``approx_topk_shape.cc``).

    With ``aggregate_to_topk`` the result is ``(top_k, -1)``. Otherwise the row is cut into bins of the
    TPU tiling ``t`` (1024 for rank 1, else 128): a row of at most ``t`` elements is not reduced
    (``(input_size, 0)``); for top_k = 1 it is reduced to ``t`` bins (log2 reduction
    ``ceil(log2(ceil(N / t)))``, N the logical size: ``input_size_override`` when >= 0); with
    recall_target = 1 not at all; else the number of bins M = min(max(floor((1 - k) / ln r), t), N)
    (the recall of M bins is about exp((1 - k) / M)), log2_reduction = floor(log2(N // M)), at most
    ceil(log2(input_size // t)), and output_size = ceil(ceil(input_size / t) / 2^log2_reduction) t.
    ``recall_target`` is rounded to f32 first (XLA's argument is a float).

    Errors are :class:`OpError`\\ s: XLA's own (recall_target outside (0, 1], an override below
    input_size, where XLA checks them) and, where XLA computes a meaningless value instead, a negative
    input_size, a rank below 1, top_k below 1 or a NaN recall_target.
    """
    name = "ApproxTopKReductionOutputSize"
    for arg, value, low in (("input_size", input_size, 0), ("rank", rank, 1), ("top_k", top_k, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise OpError(name, "arg-type", f"{arg} must be an integer >= {low}, got {value!r}", arg, {arg: value})
    if isinstance(input_size_override, bool) or not isinstance(input_size_override, int):
        raise OpError(name, "arg-type", f"input_size_override must be an integer, got {input_size_override!r}",
                      "input_size_override", {"input_size_override": input_size_override})
    if isinstance(recall_target, bool) or not isinstance(recall_target, (int, float)) or recall_target != recall_target:
        raise OpError(name, "arg-type", f"recall_target must be a number, got {recall_target!r}", "recall_target",
                      {"recall_target": recall_target})
    if aggregate_to_topk:
        return top_k, -1
    tiling = _TPU_CHUNK_TILING if rank == 1 else _TPU_LANE_TILING
    if input_size <= tiling:
        return input_size, 0
    if 0 <= input_size_override < input_size:
        raise OpError(name, "C9", f"input_size_override ({input_size_override}) must be >= input_size "
                      f"({input_size}) when set", "input_size_override",
                      {"input_size_override": input_size_override, "input_size": input_size})
    logical = input_size_override if input_size_override >= 0 else input_size
    if top_k == 1:
        return tiling, _log2_ceil(_ceil_div(logical, tiling))
    recall = float(np.float32(recall_target))
    if recall == 1.0:
        return input_size, 0
    if not 0.0 < recall <= 1.0:
        raise OpError(name, "C8", f"recall_target must be in (0, 1], got {recall_target}", "recall_target",
                      {"recall_target": recall_target})
    bins = min(max(int((1.0 - top_k) / math.log(recall)), tiling), logical)
    log2_reduction = _log2_floor(logical // bins)
    if log2_reduction == 0:
        return input_size, 0
    log2_reduction = min(log2_reduction, _log2_ceil(input_size // tiling))
    return _ceil_div(_ceil_div(input_size, tiling), 1 << log2_reduction) * tiling, log2_reduction


def approx_top_k_result_size(ctx: OpContext, n: int, rank: int) -> int:
    """The size of ApproxTopK's (and its fallback's) result along reduction_dim."""
    if ctx.attr("aggregate_to_topk"):
        return ctx.attr("top_k")
    return ApproxTopKReductionOutputSize(n, rank, ctx.attr("top_k"), ctx.attr("recall_target"), False,
                                         ctx.attr("reduction_input_size_override"))[0]


@shape_rule("ApproxTopK")
def approx_top_k(ctx: OpContext) -> Shape:
    operands, inits = _nonempty(ctx, "operands", "C2"), list(ctx.shape("init_values"))
    if len(inits) != len(operands):
        raise ctx.fail("C2", f"{len(operands)} operands need as many init values, got {len(inits)}", "init_values",
                       operands=len(operands), init_values=len(inits))
    _same_dimensions(ctx, "C3", "operands", operands)
    rank = operands[0].rank()
    if rank < 1:
        raise ctx.fail("C3", f"the operands must have at least one dimension, got {operands[0]}", "operands",
                       operand=str(operands[0]))
    for i, s in enumerate(inits):
        if s.rank() != 0:
            raise ctx.fail("C4", f"init_values[{i}] must be a scalar, got {s}", "init_values", **{f"init_value{i}": str(s)})
    d = ctx.attr("reduction_dim")
    if not 0 <= d < rank:
        raise ctx.fail("C5", f"reduction_dim must be in [0, {rank}), got {d}", "reduction_dim", reduction_dim=d,
                       rank=rank)
    n, k = operands[0].dimensions()[d], ctx.attr("top_k")
    if not 1 <= k <= n:
        raise ctx.fail("C6", f"top_k must be in [1, {n}] (the size of reduction_dim {d}), got {k}", "top_k", top_k=k,
                       size=n)
    comp: XlaComputation = ctx.attr("comparator")
    program = comp.program_shape()
    wanted = [x for s in scalars(operands) for x in (s, s)]
    if list(program.parameter_shapes()) != wanted or program.result_shape() != Shape.scalar_shape(PrimitiveType.PRED):
        raise ctx.fail("C7", f"comparator '{comp.name}' is {_signature(comp)}, but must be "
                       f"({', '.join(str(s) for s in wanted)}) -> pred[] (parameters 2i and 2i+1 are elements of "
                       "operand i)", "comparator", comparator=_signature(comp))
    recall = ctx.attr("recall_target")
    if not 0.0 < float(np.float32(recall)) <= 1.0:
        raise ctx.fail("C8", f"recall_target must be in (0, 1], got {recall}", "recall_target", recall_target=recall)
    override = ctx.attr("reduction_input_size_override")
    if 0 <= override < n:
        raise ctx.fail("C9", f"reduction_input_size_override must be negative (none) or >= {n} (the size of "
                       f"reduction_dim {d}), got {override}", "reduction_input_size_override",
                       reduction_input_size_override=override, size=n)
    size = approx_top_k_result_size(ctx, n, rank)
    return Shape.tuple_shape([resized(s, d, size) for s in operands])
