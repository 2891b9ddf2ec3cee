"""``reduce_window``: ``jax.lax.reduce_window`` served by a Pallas kernel."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from pallas_kernels.pooling.geometry import WindowGeometry
from pallas_kernels.pooling.gpu_kernel import reduce_window_gpu
from pallas_kernels.pooling.plan import (
    LAX_COMPUTATIONS,
    OP_NAME,
    ReduceWindowPlan,
    computation_name,
    plan_reduce_window,
)
from pallas_kernels.pooling.tpu_kernel import choose_tpu_blocks, reduce_window_tpu
from pallas_kernels.toolkit.decisions import KernelDecision, register_planner
from pallas_kernels.toolkit.platforms import dispatch_by_platform


def to_phase_layout(x: jax.Array, geometry: WindowGeometry, pad_value: Any) -> jax.Array:
    """Pad (with ``pad_value``), base-dilate and reshape into the phase layout."""
    padded = jax.lax.pad(x, np.asarray(pad_value, x.dtype), geometry.padding_config())
    return padded.reshape(geometry.phase_shape)


def _run_plan(operand: jax.Array, plan: ReduceWindowPlan) -> jax.Array:
    geometry = plan.geometry
    x = to_phase_layout(operand, geometry, plan.init_value)
    options = {"geometry": geometry, "computation": plan.computation,
               "init_value": plan.init_value, "accumulator": plan.accumulator_dtype}
    out = dispatch_by_platform(
        x,
        tpu=functools.partial(reduce_window_tpu, **options),
        gpu=functools.partial(reduce_window_gpu, **options),
    )
    return out.reshape(geometry.out_shape)


def _plan_with_tpu_blocks(*args: Any, **kwargs: Any) -> KernelDecision:
    """The plan, falling back where no TPU block fits VMEM (same on every platform)."""
    decision = plan_reduce_window(*args, **kwargs)
    if decision.uses_kernel:
        plan = decision.plan
        if choose_tpu_blocks(plan.geometry, plan.dtype, plan.dtype,
                             plan.accumulator_dtype) is None:
            return KernelDecision.fallback(
                OP_NAME, "one batch slice of the padded operand does not fit TPU VMEM "
                "(tiling inside a slice, with halos, is not implemented)")
    return decision


def reduce_window(
    operand: Any,
    init_value: Any,
    computation: Any,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> Any:
    """Same contract as ``jax.lax.reduce_window``, computed by a Pallas kernel.

    ``computation`` is "add", "max", "min" or "mul", or a recognised callable
    (``jax.lax.max``, ``jnp.maximum``, ...).  Calls the kernel does not cover
    (see ``explain("reduce_window", ...)``) run ``jax.lax.reduce_window``.
    Gradients use XLA's VJP of ``lax.reduce_window``.
    """
    args = (window_dimensions, window_strides, padding, base_dilation, window_dilation)
    decision = _plan_with_tpu_blocks(operand, init_value, computation, *args)
    decision.log()
    name = computation_name(computation)
    lax_computation = LAX_COMPUTATIONS[name] if name else computation
    if not decision.uses_kernel:
        if isinstance(init_value, (int, float)) and hasattr(operand, "dtype"):
            init_value = np.asarray(init_value, operand.dtype)  # like the kernel path
        return jax.lax.reduce_window(operand, init_value, lax_computation, *args)

    def xla_op(x):
        return jax.lax.reduce_window(x, init_value, lax_computation, *args)

    @jax.custom_vjp
    def kernel(x):
        return _run_plan(x, decision.plan)

    def forward(x):
        return kernel(x), x

    def backward(x, cotangent):
        return jax.vjp(xla_op, x)[1](cotangent)

    kernel.defvjp(forward, backward)
    return kernel(operand)


register_planner(OP_NAME, _plan_with_tpu_blocks)
