"""Bounded-dynamic dimensions in the reference: the four dynamic ops, and how the reference runs
programs whose dimensions have runtime sizes.

**Values.** Inside the reference, a value of a shape with bounded-dynamic dimensions is the NumPy
array of its *runtime* size: ``SetDimensionSize(v, 5, 0)`` on an ``f32[10]`` ``v`` is ``v[:5]``,
while its static shape stays ``f32[<=10]``. Element-wise ops and reductions therefore see only the
elements within the runtime size, as the operation-semantics document requires ("the padded
values are ignored by subsequent reductions"), and results come back at their runtime size.

**Element-wise ops** with a dynamic result dimension take its runtime size from the operands that
are dynamic there (they must agree, else :class:`~backend.errors.RuntimeSizeError`); an operand
that is static there (its size is the bound) is cut to that size first.

**Runtime sizes out of range** (a SetDimensionSize ``val`` or DynamicReshape size outside
``[0, bound]``, a DynamicReshape whose sizes do not hold the operand's elements) raise
:class:`~backend.errors.RuntimeSizeError`, an :class:`~backend.errors.OpError` whose constraint is
``runtime-size``.

**Padding.** Where a dimension grows past the data it holds (RemoveDynamicDimension makes it
static at its bound; SetDimensionSize to more than the operand's runtime size), XLA exposes the
padded buffer's contents, which the documents leave unspecified. The reference fills those
elements with zeros and marks them implementation-defined (``padding_contents``).

**Other ops** evaluate dynamic operands only where listed in :data:`RUNTIME_SIZED_OPS` (or
element-wise): the reference backend's ``supports()`` names any other op that meets a dynamic
shape, rather than computing with sizes its evaluator does not expect.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from backend.errors import RuntimeSizeError
from backend.hlo.shape import Shape
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, any_value

#: Ops, besides the element-wise category's, whose evaluators take runtime-sized operands.
RUNTIME_SIZED_OPS = frozenset({"Parameter", "Constant", "Iota", "Tuple", "GetTupleElement", "BroadcastInDim",
                               "Broadcast", "Reduce", "GetDimensionSize", "SetDimensionSize", "DynamicReshape",
                               "RemoveDynamicDimension"})
#: Element-wise ops whose operands do not have the result's dimensions (nothing to align).
_RESHAPING_ELEMENTWISE = frozenset({"BitcastConvertType"})


def _is_elementwise(opcode: str) -> bool:
    import specs
    from specs.loader import ELEMENTWISE
    try:
        return specs.get(opcode).category == ELEMENTWISE
    except ValueError:  # no spec (SpecError is a ValueError)
        return False


def unsupported_reason(opcode: str, operand_shapes: list[Shape], shape: Shape) -> str | None:
    """Why the reference cannot evaluate ``opcode`` on these shapes (None: it can)."""
    if shape.is_static() and all(s.is_static() for s in operand_shapes):
        return None
    if opcode in RUNTIME_SIZED_OPS or _is_elementwise(opcode):
        return None
    dynamic = next((s for s in [*operand_shapes, shape] if not s.is_static()), shape)
    return (f"{opcode}: its reference evaluator does not take operands or results with bounded-dynamic "
            f"dimensions ({dynamic}); it would size its result by the bounds, not the runtime sizes")


def align_runtime_sizes(ctx: EvaluatorContext, operands: list[Any]) -> list[Any]:
    """Element-wise ops: cut operands to the runtime size of each dynamic result dimension."""
    result = ctx.shape
    if (not result.is_array() or result.is_static() or ctx.inst.opcode in _RESHAPING_ELEMENTWISE
            or not _is_elementwise(ctx.inst.opcode)):
        return operands
    shapes = ctx.operand_shapes
    arrays = [np.asarray(x) for x in operands]
    out = list(arrays)
    for d in range(result.rank()):
        if not result.is_dynamic_dimension(d):
            continue
        bound = result.dimensions()[d]
        sizes = {x.shape[d] for x, s in zip(arrays, shapes)
                 if s.rank() == result.rank() and s.dimensions()[d] == bound and s.is_dynamic_dimension(d)}
        if len(sizes) > 1:
            raise RuntimeSizeError(ctx.inst.opcode, f"operands have different runtime sizes {sorted(sizes)} in the "
                                   f"dynamic dimension {d} of {result}", values={"sizes": sorted(sizes)})
        size = sizes.pop()
        out = [x[_prefix(x.ndim, d, size)] if x.ndim == result.rank() and x.shape[d] == bound else x for x in out]
    return out


def check_runtime_value(ctx: EvaluatorContext, value: Any, shape: Shape | None = None) -> None:
    """Fail loudly where an evaluator's value does not fit its static shape (a bug of ours)."""
    from backend.errors import OpError
    from backend.hlo.shape import runtime_size_mismatch

    shape = ctx.shape if shape is None else shape
    if shape.is_tuple():
        for v, s in zip(value, shape.tuple_shapes()):
            check_runtime_value(ctx, v, s)
        return
    if shape.is_array():
        problem = runtime_size_mismatch(shape, np.shape(value))
        if problem:
            raise OpError(ctx.inst.opcode, "internal", f"the reference computed a value of shape "
                          f"{list(np.shape(value))} for {shape}: {problem}")


def _prefix(rank: int, dim: int, size: int) -> tuple[slice, ...]:
    return tuple(slice(0, size) if i == dim else slice(None) for i in range(rank))


def _resize(x: np.ndarray, dim: int, size: int) -> np.ndarray:
    """``x`` cut or zero-padded to ``size`` along ``dim``."""
    if size <= x.shape[dim]:
        return x[_prefix(x.ndim, dim, size)].copy()
    widths = [(0, size - x.shape[dim]) if i == dim else (0, 0) for i in range(x.ndim)]
    return np.pad(x, widths)


def _padding_outcomes(x: np.ndarray, dim: int, size: int) -> dict[str, Allowed]:
    """Where ``_resize(x, dim, size)`` holds padding (positions past ``x``'s runtime size): any value there."""
    shape = list(x.shape)
    shape[dim] = size
    index = np.arange(size).reshape([-1 if i == dim else 1 for i in range(x.ndim)])
    return {"padding_contents": Allowed(np.broadcast_to(index >= x.shape[dim], shape), {"any_value": any_value})}


def _runtime_size(ctx: EvaluatorContext, value: Any, bound: int, arg: str) -> int:
    size = int(np.asarray(value))
    if not 0 <= size <= bound:
        raise RuntimeSizeError(ctx.inst.opcode, f"runtime size {size} is outside [0, {bound}]", arg,
                               {arg: size, "bound": bound})
    return size


@evaluator("GetDimensionSize")
def get_dimension_size(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    return np.asarray(operand.shape[ctx.attr("dimension")], np.int32)


@evaluator("SetDimensionSize")
def set_dimension_size(ctx: EvaluatorContext, operand: np.ndarray, val: np.ndarray) -> np.ndarray:
    dim = ctx.attr("dimension")
    return _resize(operand, dim, _runtime_size(ctx, val, ctx.shape.dimensions()[dim], "val"))


@implementation_defined("SetDimensionSize")
def set_dimension_size_outcomes(ctx: EvaluatorContext, operand: np.ndarray, val: np.ndarray) -> dict[str, Allowed]:
    dim = ctx.attr("dimension")
    return _padding_outcomes(operand, dim, _runtime_size(ctx, val, ctx.shape.dimensions()[dim], "val"))


@evaluator("RemoveDynamicDimension")
def remove_dynamic_dimension(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    dim = ctx.attr("dimension")
    return _resize(operand, dim, ctx.shape.dimensions()[dim])


@implementation_defined("RemoveDynamicDimension")
def remove_dynamic_dimension_outcomes(ctx: EvaluatorContext, operand: np.ndarray) -> dict[str, Allowed]:
    dim = ctx.attr("dimension")
    return _padding_outcomes(operand, dim, ctx.shape.dimensions()[dim])


@evaluator("DynamicReshape")
def dynamic_reshape(ctx: EvaluatorContext, operand: np.ndarray, dim_sizes: list[np.ndarray]) -> np.ndarray:
    """The operand's runtime elements in row-major order, reshaped to the runtime sizes: a dynamic
    dimension takes its ``dim_sizes`` value, a static one its bound (its ``dim_sizes`` value is not read)."""
    sizes = [_runtime_size(ctx, v, bound, f"dim_sizes[{i}]") if dynamic else bound
             for i, (v, bound, dynamic) in enumerate(zip(dim_sizes, ctx.shape.dimensions(),
                                                         ctx.shape.dynamic_dimensions()))]
    if math.prod(sizes) != operand.size:
        raise RuntimeSizeError(ctx.inst.opcode, f"runtime sizes {sizes} hold {math.prod(sizes)} elements, the "
                               f"operand holds {operand.size} (runtime shape {list(operand.shape)})", "dim_sizes",
                               {"sizes": sizes})
    return operand.reshape(sizes)
