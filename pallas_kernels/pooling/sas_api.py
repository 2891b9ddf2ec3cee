"""``select_and_scatter_add``: XLA SelectAndScatter (scatter = add) by Pallas.

With ``select="ge"`` this is the max-pool gradient: each source value is added
to the first maximum (row-major window order) of its window.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax._src.lax.windowed_reductions import _select_and_scatter_add

from pallas_kernels.pooling.api import to_phase_layout
from pallas_kernels.pooling.sas_gpu import select_and_scatter_gpu
from pallas_kernels.pooling.sas_plan import (
    OP_NAME,
    SELECT_PRIMITIVES,
    SelectAndScatterPlan,
    plan_select_and_scatter_add,
    select_name,
)
from pallas_kernels.pooling.sas_tpu import choose_sas_blocks, select_and_scatter_tpu
from pallas_kernels.pooling.select_body import pad_halo
from pallas_kernels.toolkit.decisions import KernelDecision, register_planner
from pallas_kernels.toolkit.platforms import dispatch_by_platform


def _run_plan(source: jax.Array, operand: jax.Array,
              plan: SelectAndScatterPlan) -> jax.Array:
    geometry = plan.geometry
    x = to_phase_layout(operand, geometry, 0)
    src = pad_halo(source.reshape(geometry.canonical_out_shape), geometry, 0)
    options = {"geometry": geometry, "select": plan.select,
               "compare_dtype": plan.compare_dtype, "accumulator": plan.accumulator_dtype}
    grad = dispatch_by_platform(
        x, src,
        tpu=functools.partial(select_and_scatter_tpu, **options),
        gpu=functools.partial(select_and_scatter_gpu, **options),
    )
    grad = grad.reshape(geometry.padded_shape)
    starts = [0] * len(geometry.operand_shape)
    for i, m in enumerate(geometry.middle):
        starts[geometry.first_middle + i] = m.low
    return jax.lax.slice(grad, starts,
                         [s + n for s, n in zip(starts, geometry.operand_shape)])


def _plan_with_tpu_blocks(*args: Any, **kwargs: Any) -> KernelDecision:
    """The plan, falling back where no TPU block fits VMEM (same on every platform)."""
    decision = plan_select_and_scatter_add(*args, **kwargs)
    if decision.uses_kernel:
        plan = decision.plan
        if choose_sas_blocks(plan.geometry, plan.operand_dtype, plan.source_dtype,
                             plan.compare_dtype, plan.accumulator_dtype) is None:
            return KernelDecision.fallback(
                OP_NAME, "one batch slice of the padded operand does not fit TPU VMEM "
                "(tiling inside a slice, with halos, is not implemented)")
    return decision


def select_and_scatter_add(
    source: Any,
    operand: Any,
    select: Any = "ge",
    window_dimensions: Sequence[int] = (),
    window_strides: Sequence[int] | None = None,
    padding: Any = "VALID",
) -> jax.Array:
    """XLA SelectAndScatter with ``select`` ("ge" or "le") and scatter = add.

    For each window of ``operand`` (padded with ``padding``), the first
    element (row-major window order) that ``select`` prefers over all others
    receives the window's ``source`` value; the result has ``operand``'s shape
    and ``source``'s dtype.  Padding is never selected.  Calls the kernels do
    not cover (``explain("select_and_scatter_add", ...)``) use XLA.
    """
    decision = _plan_with_tpu_blocks(source, operand, select, window_dimensions,
                                     window_strides, padding)
    decision.log()
    if decision.uses_kernel:
        return _run_plan(source, operand, decision.plan)
    rank = np.ndim(operand)
    strides = (1,) * rank if window_strides is None else tuple(window_strides)
    if isinstance(padding, str):
        padding = jax.lax.padtype_to_pads(np.shape(operand), window_dimensions,
                                          strides, padding)
    primitive = SELECT_PRIMITIVES.get(select_name(select) or "", select)
    return _select_and_scatter_add(source, operand, primitive, tuple(window_dimensions),
                                   strides, tuple(tuple(p) for p in padding))


register_planner(OP_NAME, _plan_with_tpu_blocks)
