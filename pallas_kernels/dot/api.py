"""``dot_general``: ``jax.lax.dot_general`` served by a Pallas kernel."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from pallas_kernels.dot.gpu_kernel import batched_matmul_gpu
from pallas_kernels.dot.plan import OP_NAME, DotPlan, plan_dot_general
from pallas_kernels.dot.tpu_kernel import batched_matmul_tpu
from pallas_kernels.toolkit.decisions import register_planner
from pallas_kernels.toolkit.gradients import with_xla_gradient
from pallas_kernels.toolkit.platforms import dispatch_by_platform

DimensionNumbers = tuple[
    tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]
]


def _run_plan(lhs: jax.Array, rhs: jax.Array, plan: DotPlan) -> jax.Array:
    lhs3 = jnp.transpose(lhs, plan.lhs_permutation).reshape(plan.batch, plan.m, plan.k)
    rhs3 = jnp.transpose(rhs, plan.rhs_permutation).reshape(plan.batch, plan.k, plan.n)
    options = {
        "out_dtype": plan.out_dtype,
        "accumulator_dtype": plan.accumulator_dtype,
        "precision": plan.precision,
    }
    out = dispatch_by_platform(
        lhs3,
        rhs3,
        tpu=functools.partial(batched_matmul_tpu, **options),
        gpu=functools.partial(batched_matmul_gpu, **options),
    )
    return out.reshape(plan.result_shape)


def dot_general(
    lhs: jax.Array,
    rhs: jax.Array,
    dimension_numbers: DimensionNumbers,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> jax.Array:
    """Same contract as ``jax.lax.dot_general``, computed by a Pallas kernel.

    Lowers to a Mosaic kernel on TPU, a Triton kernel on CUDA GPUs and an
    interpret-mode kernel elsewhere (CPU).  Calls the kernel does not cover
    (see ``explain("dot_general", ...)``) run ``jax.lax.dot_general`` instead;
    the reason is logged at debug level on the ``pallas_kernels`` logger.
    """
    decision = plan_dot_general(
        lhs, rhs, dimension_numbers, precision, preferred_element_type, out_sharding
    )
    decision.log()
    if not decision.uses_kernel:
        return jax.lax.dot_general(
            lhs,
            rhs,
            dimension_numbers,
            precision=precision,
            preferred_element_type=preferred_element_type,
            out_sharding=out_sharding,
        )
    return _differentiable_kernel(decision.plan, dimension_numbers, precision,
                                  preferred_element_type)(lhs, rhs)


def _differentiable_kernel(
    plan: DotPlan, dimension_numbers: Any, precision: Any, preferred_element_type: Any
):
    """The kernel forward; gradients from ``lax.dot_general``'s own VJP.

    Pallas cannot differentiate the kernel body, so the backward pass uses the
    XLA op's transpose rules (two XLA dots) on the saved operands.
    """

    def xla_dot(lhs, rhs):
        return jax.lax.dot_general(lhs, rhs, dimension_numbers, precision=precision,
                                   preferred_element_type=preferred_element_type)

    return with_xla_gradient(lambda lhs, rhs: _run_plan(lhs, rhs, plan), xla_dot)


register_planner(OP_NAME, plan_dot_general)
