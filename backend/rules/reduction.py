"""Shape rules of the reductions: Reduce, ReduceWindow and SelectAndScatter.

The window helpers (:class:`Window`, :func:`window_of`) are shared with the reference
evaluators and the jax / Pallas lowerings, so every layer reads the attributes the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from backend.hlo.etypes import PrimitiveType
from backend.hlo.graph import XlaComputation
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


@dataclasses.dataclass(frozen=True)
class Window:
    """A window with every per-dimension attribute filled in (unit strides / dilations by default)."""

    dimensions: tuple[int, ...]
    strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    base_dilations: tuple[int, ...]
    window_dilations: tuple[int, ...]

    def output_dims(self, base: Sequence[int]) -> tuple[int, ...]:
        """XLA's window output size: the strided bound of the dilated window in the padded, dilated base."""
        out = []
        for size, w, s, (lo, hi), bd, wd in zip(base, self.dimensions, self.strides, self.padding,
                                                 self.base_dilations, self.window_dilations):
            dilated_base = 0 if size == 0 else (size - 1) * bd + 1
            padded = dilated_base + lo + hi
            dilated_window = (w - 1) * wd + 1
            out.append(0 if dilated_window > padded else (padded - dilated_window) // s + 1)
        return tuple(out)


def window_of(attrs: dict[str, Any], rank: int) -> Window:
    """The window described by an instruction's (already validated) attributes."""
    ones = (1,) * rank
    return Window(tuple(attrs["window_dimensions"]), tuple(attrs["window_strides"]), tuple(attrs["padding"]),
                  tuple(attrs.get("base_dilations") or ones), tuple(attrs.get("window_dilations") or ones))


def _check_window(ctx: OpContext, rank: int, length_id: str, value_id: str) -> Window:
    named = {"window_dimensions": ctx.attr("window_dimensions"), "window_strides": ctx.attr("window_strides"),
             "padding": ctx.attr("padding")}
    for name in ("base_dilations", "window_dilations"):
        if ctx.attrs.get(name) is not None:
            named[name] = ctx.attr(name)
    for name, value in named.items():
        if len(value) != rank:
            raise ctx.fail(length_id, f"{name} has {len(value)} entries, but the operand has rank {rank}", name,
                           **{name: list(value)})
    for name in ("window_dimensions", "window_strides", "base_dilations", "window_dilations"):
        if name in named and any(v < 1 for v in named[name]):
            raise ctx.fail(value_id, f"{name} must all be >= 1, got {list(named[name])}", name,
                           **{name: list(named[name])})
    if any(lo < 0 or hi < 0 for lo, hi in named["padding"]):
        raise ctx.fail(value_id, f"padding must be non-negative (low, high) pairs, got {list(named['padding'])}",
                       "padding", padding=list(named["padding"]))
    return window_of(ctx.attrs, rank)


def _check_variadic(ctx: OpContext, count_id: str, dims_id: str, scalar_id: str) -> list[Shape]:
    """N >= 1 operands of equal dimensions and N scalar init values; returns the operand shapes."""
    operands, inits = ctx.shape("operands"), ctx.shape("init_values")
    if not operands or len(operands) != len(inits):
        raise ctx.fail(count_id, f"need N >= 1 operands and as many init_values, got {len(operands)} operands and "
                       f"{len(inits)} init_values", "init_values")
    for i, s in enumerate(operands[1:], 1):
        if s.dimensions() != operands[0].dimensions():
            raise ctx.fail(dims_id, f"operand {i} has dimensions {list(s.dimensions())}, operand 0 has "
                           f"{list(operands[0].dimensions())}", "operands", operand0=str(operands[0]),
                           **{f"operand{i}": str(s)})
    for i, s in enumerate(inits):
        if s.rank() != 0:
            raise ctx.fail(scalar_id, f"init value {i} must be a scalar, got {s}", "init_values", init_value=str(s))
    return operands


def check_computation(ctx: OpContext, name: str, params: Sequence[PrimitiveType], results: Sequence[PrimitiveType],
                      constraint: str) -> None:
    """``ctx.attr(name)`` takes scalars of ``params`` and returns a scalar of ``results[0]`` (one
    result) or a tuple of scalars of ``results``."""
    comp: XlaComputation = ctx.attr(name)
    program = comp.program_shape()
    want_params = [Shape.scalar_shape(t) for t in params]
    want_result = Shape.scalar_shape(results[0]) if len(results) == 1 \
        else Shape.tuple_shape([Shape.scalar_shape(t) for t in results])
    got_params = list(program.parameter_shapes())
    if [str(p) for p in got_params] != [str(p) for p in want_params] \
            or str(program.result_shape()) != str(want_result):
        expected = f"({', '.join(str(p) for p in want_params)}) -> {want_result}"
        raise ctx.fail(constraint, f"{name} '{comp.name}' has type {program}, expected {expected}", name,
                       computation=str(program), expected=expected)


def _check_reducer(ctx: OpContext, operands: list[Shape], constraint: str) -> list[PrimitiveType]:
    types = [s.element_type() for s in operands]
    check_computation(ctx, "computation", types + types, types, constraint)
    return types


def _result(types: list[PrimitiveType], dims: Sequence[int], dynamic: Sequence[bool] | None = None) -> Shape:
    shapes = [Shape.array_shape(t, dims, dynamic_dimensions=dynamic) for t in types]
    return shapes[0] if len(shapes) == 1 else Shape.tuple_shape(shapes)


@shape_rule("Reduce")
def reduce(ctx: OpContext) -> Shape:
    operands = _check_variadic(ctx, "C2", "C3", "C4")
    dims = list(ctx.attr("dimensions_to_reduce"))
    rank = operands[0].rank()
    if any(not 0 <= d < rank for d in dims) or len(set(dims)) != len(dims):
        raise ctx.fail("C6", f"dimensions_to_reduce {dims} must be distinct dimensions of the rank-{rank} operands",
                       "dimensions_to_reduce", dimensions_to_reduce=dims, operand=str(operands[0]))
    types = _check_reducer(ctx, operands, "C5")
    kept = [d for d in range(rank) if d not in dims]
    dynamic = [any(s.is_dynamic_dimension(d) for s in operands) for d in kept]
    return _result(types, [operands[0].dimensions()[d] for d in kept], dynamic)


@shape_rule("ReduceWindow")
def reduce_window(ctx: OpContext) -> Shape:
    operands = _check_variadic(ctx, "C2", "C3", "C4")
    window = _check_window(ctx, operands[0].rank(), "C6", "C7")
    types = _check_reducer(ctx, operands, "C5")
    return _result(types, window.output_dims(operands[0].dimensions()))


@shape_rule("SelectAndScatter")
def select_and_scatter(ctx: OpContext) -> Shape:
    operand, source, init = ctx.shape("operand"), ctx.shape("source"), ctx.shape("init_value")
    if init.rank() != 0:
        raise ctx.fail("C2", f"init_value must be a scalar, got {init}", "init_value", init_value=str(init))
    t = operand.element_type()
    check_computation(ctx, "select", [t, t], [PrimitiveType.PRED], "C3")
    check_computation(ctx, "scatter", [t, t], [t], "C4")
    window = _check_window(ctx, operand.rank(), "C5", "C6")
    windows = window.output_dims(operand.dimensions())
    if source.dimensions() != windows:
        raise ctx.fail("C7", f"source has dimensions {list(source.dimensions())}, but the windows of the operand "
                       f"{list(operand.dimensions())} form a {list(windows)} array", "source", source=str(source),
                       windows=list(windows))
    return Shape.array_shape(t, operand.dimensions())
