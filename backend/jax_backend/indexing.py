"""jax lowerings of Gather (lax.gather, mode CLIP) and Scatter (lax.scatter*, mode FILL_OR_DROP).

jax wants the index vector in the last dimension of the indices: index_vector_dim is moved
there with a transpose, or added as a trailing dimension of size 1 when it equals the rank.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from backend.errors import UnsupportedError
from backend.hlo.attribute_types import GatherDimensionNumbers, ScatterDimensionNumbers
from backend.hlo.reducers import binary_reducer_name, tuple_element_parameters
from backend.jax_backend import LoweringContext, limitation, lowering
from backend.rules.indexing import returns_second_parameter

DN = "dimension_numbers"
LAX_SCATTERS = {"replace": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul, "min": lax.scatter_min,
                "max": lax.scatter_max}


def index_vector_last(indices: Any, ivd: int) -> Any:
    """The indices with index_vector_dim moved to (or added as) the last dimension."""
    if ivd == indices.ndim:
        return lax.expand_dims(indices, (ivd,))
    if ivd == indices.ndim - 1:
        return indices
    return lax.transpose(indices, [d for d in range(indices.ndim) if d != ivd] + [ivd])


def _moved(dims: tuple[int, ...], ivd: int) -> tuple[int, ...]:
    """Indices dimension numbers after index_vector_dim has moved to the end."""
    return tuple(d if d < ivd else d - 1 for d in dims)


@lowering("Gather")
def gather(ctx: LoweringContext, operand: Any, start_indices: Any) -> Any:
    dn: GatherDimensionNumbers = ctx.attr(DN)
    lax_dn = lax.GatherDimensionNumbers(
        offset_dims=dn.offset_dims, collapsed_slice_dims=dn.collapsed_slice_dims, start_index_map=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=_moved(dn.start_indices_batching_dims, dn.index_vector_dim))
    return lax.gather(operand, index_vector_last(start_indices, dn.index_vector_dim), lax_dn, ctx.attr("slice_sizes"),
                      indices_are_sorted=ctx.attr("indices_are_sorted"), mode=lax.GatherScatterMode.CLIP)


def scatter_arguments(ctx: LoweringContext, scatter_indices: Any) -> tuple[Any, Any]:
    """The indices (index vector last) and the lax.ScatterDimensionNumbers for them."""
    dn: ScatterDimensionNumbers = ctx.attr(DN)
    lax_dn = lax.ScatterDimensionNumbers(
        update_window_dims=dn.update_window_dims, inserted_window_dims=dn.inserted_window_dims,
        scatter_dims_to_operand_dims=dn.scatter_dims_to_operand_dims, operand_batching_dims=dn.input_batching_dims,
        scatter_indices_batching_dims=_moved(dn.scatter_indices_batching_dims, dn.index_vector_dim))
    return index_vector_last(scatter_indices, dn.index_vector_dim), lax_dn


def scatter_combiner(ctx: LoweringContext, dtype: Any) -> str | None:
    """"replace", "add", "mul", "min" or "max" when the update computation is one of those, else None."""
    comp = ctx.attr("update_computation")
    if returns_second_parameter(comp):
        return "replace"
    name = binary_reducer_name(comp)
    return name if name in LAX_SCATTERS and np.dtype(dtype).kind != "b" else None


def _mixing_reason(comp: Any, n: int) -> str | None:
    """Why jax cannot scatter n operands with this update computation (one scatter per operand needs
    result i to depend only on parameters i and n + i), or None."""
    deps = tuple_element_parameters(comp)
    for i in range(n):
        if deps is None or not deps[i] <= {i, n + i}:
            return (f"{n} operands whose update computation mixes them (result {i} depends on other operands' "
                    "values): jax.lax.scatter takes one operand at a time")
    return None


@limitation("Scatter")
def _variadic_scatter_limit(inst: Any, operand_shapes: list[Any]) -> str | None:
    n = inst.operand_args[0][1]
    return _mixing_reason(inst.attrs["update_computation"], n) if n > 1 else None


def _element_combiner(ctx: LoweringContext, i: int, n: int) -> Any:
    """Operand i's combiner ``(current, update) -> new``, from the update computation's result i (which
    depends only on parameters i and n + i: see the limitation above)."""
    comp = ctx.attr("update_computation")
    reason = _mixing_reason(comp, n)
    if reason:
        raise UnsupportedError("jax", "Scatter", reason)
    params = comp.program_shape().parameter_shapes()

    def combine(x: Any, y: Any) -> Any:
        args = [jnp.zeros((), p.numpy_dtype()) for p in params]
        args[i], args[n + i] = x, y
        return ctx.call(comp, args)[i]
    return combine


def _general_scatter(ctx: LoweringContext, operand: Any, indices: Any, updates: Any, dn: Any, combine: Any = None,
                     **options: Any) -> Any:
    """Scatter with an arbitrary update computation (or ``combine``), through the scatter_p primitive."""
    comp = ctx.attr("update_computation")
    try:
        from jax._src.core import ShapedArray
        from jax._src.lax.lax import _reduction_jaxpr
        from jax._src.lax.slicing import scatter_p
    except ImportError as e:  # private API moved
        raise UnsupportedError("jax", "Scatter", f"general update_computation needs jax's scatter_p: {e}") from e

    if combine is None:
        def combine(x: Any, y: Any) -> Any:
            return ctx.call(comp, [x, y])

    jaxpr, consts = _reduction_jaxpr(combine, ShapedArray((), operand.dtype))
    return scatter_p.bind(operand, indices, updates, update_jaxpr=jaxpr, update_consts=consts,
                          dimension_numbers=dn, **options)


@lowering("Scatter")
def scatter(ctx: LoweringContext, operands: list[Any], scatter_indices: Any, updates: list[Any]) -> Any:
    indices, dn = scatter_arguments(ctx, scatter_indices)
    options = {"indices_are_sorted": ctx.attr("indices_are_sorted"), "unique_indices": ctx.attr("unique_indices"),
               "mode": lax.GatherScatterMode.FILL_OR_DROP}
    n = len(operands)
    if n > 1:  # variadic: one scatter per operand, when the update computation treats them separately
        return tuple(_general_scatter(ctx, x, indices, u, dn, _element_combiner(ctx, i, n), **options)
                     for i, (x, u) in enumerate(zip(operands, updates)))
    name = scatter_combiner(ctx, operands[0].dtype)
    if name is not None:
        return LAX_SCATTERS[name](operands[0], indices, updates[0], dn, **options)
    return _general_scatter(ctx, operands[0], indices, updates[0], dn, **options)
