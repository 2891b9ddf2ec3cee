"""jax lowerings of the control-flow ops.

Call and CompositeCall are traced inline (through the walker's frame stack, so any nesting depth
works); While, Conditional and OptimizationBarrier map onto lax.while_loop, lax.cond / lax.switch
and lax.optimization_barrier.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.jax_backend import LoweringContext, lowering
from backend.runtime import control_flow as shared


@lowering("Call")
def call(ctx: LoweringContext, operands: list[Any]) -> Any:
    return shared.call(ctx, operands)


@lowering("CompositeCall")
def composite_call(ctx: LoweringContext, operands: list[Any]) -> Any:
    return shared.composite_call(ctx, operands)


@lowering("While")
def while_(ctx: LoweringContext, init: Any) -> Any:
    condition, body = ctx.attr("condition"), ctx.attr("body")
    return lax.while_loop(lambda state: ctx.call(condition, [state], shared=True),
                          lambda state: ctx.call(body, [state], shared=True), init)


def _branch(ctx: LoweringContext, computation: Any) -> Any:
    return lambda operand: ctx.call(computation, [operand], shared=True)


@lowering("Conditional")
def conditional(ctx: LoweringContext, selector: Any, *operands: Any) -> Any:
    if "true_computation" in ctx.attrs:  # Conditional(predicate, true_operand, ..., false_operand, ...)
        true_operand, false_operand = operands
        return lax.cond(selector, lambda ops: _branch(ctx, ctx.attr("true_computation"))(ops[0]),
                        lambda ops: _branch(ctx, ctx.attr("false_computation"))(ops[1]),
                        (true_operand, false_operand))
    branch_operands, = operands
    computations = ctx.attr("branch_computations")
    count = len(computations)
    # lax.switch clamps the index into range; XLA runs the last branch for any out-of-range index
    index = jnp.where((selector >= 0) & (selector < count), selector, count - 1)
    branches = [lambda ops, b=b: _branch(ctx, computations[b])(ops[b]) for b in range(count)]
    return lax.switch(index, branches, tuple(branch_operands))


@lowering("OptimizationBarrier")
def optimization_barrier(ctx: LoweringContext, operand: Any) -> Any:
    return lax.optimization_barrier(operand)

