"""jax lowerings of Reduce, ReduceWindow and SelectAndScatter.

Sub-computations are traced inline (``ctx.call``); a recognised reducer (Add, Max...) of a
non-pred type is passed to jax.lax as the lax function itself, which jax may lower to its
monoid fast paths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import lax
from jax._src.lax.windowed_reductions import _select_and_scatter

from backend.hlo.graph import XlaComputation
from backend.hlo.reducers import binary_reducer_name
from backend.jax_backend import LoweringContext, lowering
from backend.rules.reduction import window_of

LAX_REDUCERS: dict[str, Callable[..., Any]] = {
    "add": lax.add, "mul": lax.mul, "max": lax.max, "min": lax.min, "and": lax.bitwise_and, "or": lax.bitwise_or,
}


def traced(ctx: LoweringContext, comp: XlaComputation) -> Callable[..., Any]:
    """A two-argument jax function running ``comp`` (one scalar each, or tuples of N scalars)."""
    name = binary_reducer_name(comp)
    if name is not None and comp.parameters[0].shape.numpy_dtype() != np.bool_:
        return LAX_REDUCERS[name]

    def fn(a: Any, b: Any) -> Any:
        if isinstance(a, (tuple, list)):
            return tuple(ctx.call(comp, [*a, *b]))
        return ctx.call(comp, [a, b])
    return fn


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _tree(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else tuple(values)


@lowering("Reduce")
def reduce(ctx: LoweringContext, operands: list[Any], init_values: list[Any]) -> Any:
    return lax.reduce(_tree(operands), _tree(init_values), traced(ctx, ctx.attr("computation")),
                      tuple(ctx.attr("dimensions_to_reduce")))


@lowering("ReduceWindow")
def reduce_window(ctx: LoweringContext, operands: list[Any], init_values: list[Any]) -> Any:
    if operands[0].ndim == 0:
        # A scalar has one window, of no dimension, holding the element: the result is the computation
        # applied once to the init values and the elements. lax.reduce_window returns the operand there,
        # dropping the init value.
        return _tree(list(_as_list(traced(ctx, ctx.attr("computation"))(_tree(init_values), _tree(operands)))))
    w = window_of(ctx.attrs, operands[0].ndim)
    return lax.reduce_window(_tree(operands), _tree(init_values), traced(ctx, ctx.attr("computation")),
                             w.dimensions, w.strides, w.padding, w.base_dilations, w.window_dilations)


@lowering("SelectAndScatter")
def select_and_scatter(ctx: LoweringContext, operand: Any, source: Any, init_value: Any) -> Any:
    w = window_of(ctx.attrs, operand.ndim)
    select, scatter = ctx.attr("select"), ctx.attr("scatter")
    return _select_and_scatter(operand, lambda a, b: ctx.call(select, [a, b]), w.dimensions, w.strides, w.padding,
                               source, init_value, lambda a, b: ctx.call(scatter, [a, b]))
