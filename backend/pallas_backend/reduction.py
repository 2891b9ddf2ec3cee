"""ReduceWindow and SelectAndScatter through the Pallas pooling kernels.

One operand with an Add/Max/Min/Mul reducer goes to ``pallas_kernels.reduce_window``; a
SelectAndScatter selecting with Ge (first maximum) or Le (first minimum) and scattering with Add
goes to ``pallas_kernels.select_and_scatter_add``. Both fall back to jax.lax with a logged reason
where the kernel does not cover a call; every other case uses the jax lowering.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from jax import lax

from backend.hlo.reducers import binary_reducer_name, select_comparison
from backend.jax_backend import LoweringContext
from backend.jax_backend import reduction as jax_reduction
from backend.pallas_backend import pallas_lowering
from backend.rules.reduction import window_of

KERNEL_REDUCERS = ("add", "max", "min", "mul")


def reducer_identity(name: str, dtype: np.dtype) -> Any:
    """The concrete identity of a kernel reducer (the kernel needs a concrete init value)."""
    if name in ("add", "mul"):
        return np.asarray(1 if name == "mul" else (-0.0 if np.issubdtype(dtype, np.floating) else 0)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.asarray(info.min if name == "max" else info.max, dtype)
    return np.asarray(-np.inf if name == "max" else np.inf).astype(dtype)


@pallas_lowering("ReduceWindow")
def reduce_window(ctx: LoweringContext, operands: list[Any], init_values: list[Any]) -> Any:
    name = binary_reducer_name(ctx.attr("computation"))
    if len(operands) != 1 or name not in KERNEL_REDUCERS or operands[0].dtype == np.bool_:
        return jax_reduction.reduce_window(ctx, operands, init_values)
    from pallas_kernels import reduce_window as kernel

    w = window_of(ctx.attrs, operands[0].ndim)
    # the (traced) init value is combined once per window after the kernel ran from the identity,
    # the reference's reading of the semantics (padding and dilation holes contribute nothing)
    windows = kernel(operands[0], reducer_identity(name, np.dtype(operands[0].dtype)), computation=name,
                     window_dimensions=w.dimensions, window_strides=w.strides, padding=w.padding,
                     base_dilation=w.base_dilations, window_dilation=w.window_dilations)
    return jax_reduction.LAX_REDUCERS[name](windows, lax.broadcast(init_values[0], windows.shape))


@pallas_lowering("SelectAndScatter")
def select_and_scatter(ctx: LoweringContext, operand: Any, source: Any, init_value: Any) -> Any:
    select = select_comparison(ctx.attr("select"))
    if select not in ("ge", "le") or binary_reducer_name(ctx.attr("scatter")) != "add" \
            or operand.dtype == np.bool_:
        return jax_reduction.select_and_scatter(ctx, operand, source, init_value)
    from pallas_kernels import select_and_scatter_add as kernel

    w = window_of(ctx.attrs, operand.ndim)
    scattered = kernel(source, operand, select=select, window_dimensions=w.dimensions, window_strides=w.strides,
                       padding=w.padding)
    # the kernel scatters into zeros; the output starts at init_value instead
    return lax.add(scattered, lax.broadcast(init_value, scattered.shape))
