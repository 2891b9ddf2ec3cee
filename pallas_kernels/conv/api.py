"""``conv_general_dilated``: ``jax.lax.conv_general_dilated`` served by Pallas kernels."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax

from pallas_kernels.conv.gpu_kernel import conv_gpu
from pallas_kernels.conv.layout import (
    canonical_operands,
    grouped_flat_input,
    grouped_taps_filter,
    output_from_groups,
    to_output_layout,
)
from pallas_kernels.conv.plan import OP_NAME, ConvPlan, plan_conv_general_dilated
from pallas_kernels.conv.tpu_kernel import conv_tpu
from pallas_kernels.dot.api import dot_general
from pallas_kernels.toolkit.decisions import register_planner
from pallas_kernels.toolkit.gradients import with_xla_gradient
from pallas_kernels.toolkit.platforms import dispatch_by_platform


def _run_matmul(x: jax.Array, w: jax.Array, plan: ConvPlan) -> jax.Array:
    """1x1 filter: subsample by the strides, then one ``[NHW, C] x [C, O]`` matmul."""
    sh, sw = plan.strides
    x = x[:, ::sh, ::sw]
    y = dot_general(x, w[0, 0], (((3,), (0,)), ((), ())), precision=plan.precision,
                    preferred_element_type=plan.out_dtype)
    return to_output_layout(y, plan)


def _run_plan(lhs: jax.Array, rhs: jax.Array, plan: ConvPlan) -> jax.Array:
    x, w = canonical_operands(lhs, rhs, plan)
    if plan.kind == "matmul":
        return _run_matmul(x, w, plan)
    windows = plan.windows()
    options = {
        "windows": windows,
        "out_dtype": plan.out_dtype,
        "precision": plan.precision,
        "depthwise": plan.kind == "depthwise",
    }
    y = dispatch_by_platform(
        grouped_flat_input(x, plan, windows),
        grouped_taps_filter(w, plan),
        tpu=functools.partial(conv_tpu, **options),
        gpu=functools.partial(conv_gpu, **options),
    )
    return output_from_groups(y, plan, windows)


def conv_general_dilated(
    lhs: jax.Array,
    rhs: jax.Array,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> jax.Array:
    """Same contract as ``jax.lax.conv_general_dilated``, computed by Pallas kernels.

    Lowers to Mosaic kernels on TPU, Triton kernels on CUDA GPUs and
    interpret-mode kernels elsewhere (CPU).  Calls the kernels do not cover (see
    ``explain("conv_general_dilated", ...)``) run the XLA op instead; the reason
    is logged at debug level on the ``pallas_kernels`` logger.
    """
    arguments = {
        "window_strides": window_strides, "padding": padding,
        "lhs_dilation": lhs_dilation, "rhs_dilation": rhs_dilation,
        "dimension_numbers": dimension_numbers,
        "feature_group_count": feature_group_count,
        "batch_group_count": batch_group_count, "precision": precision,
        "preferred_element_type": preferred_element_type,
    }
    decision = plan_conv_general_dilated(lhs, rhs, out_sharding=out_sharding, **arguments)
    decision.log()
    if not decision.uses_kernel:
        return jax.lax.conv_general_dilated(lhs, rhs, out_sharding=out_sharding,
                                            **arguments)
    return _differentiable_kernel(decision.plan, arguments)(lhs, rhs)


def _differentiable_kernel(plan: ConvPlan, arguments: dict[str, Any]):
    """The kernel forward; gradients from ``lax.conv_general_dilated``'s VJP."""

    def xla_conv(lhs, rhs):
        return jax.lax.conv_general_dilated(lhs, rhs, **arguments)

    return with_xla_gradient(lambda lhs, rhs: _run_plan(lhs, rhs, plan), xla_conv)


register_planner(OP_NAME, plan_conv_general_dilated)
