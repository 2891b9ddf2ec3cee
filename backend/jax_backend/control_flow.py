"""jax lowerings of the control-flow ops.

Call and CompositeCall are traced inline (through the walker's frame stack, so any nesting depth
works); While, Conditional and OptimizationBarrier map onto lax.while_loop, lax.cond / lax.switch
and lax.optimization_barrier.
"""

from __future__ import annotations

from typing import Any

import jax
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


def _selectable(values: list[Any]) -> bool:
    """Whether every leaf of these operands is an array ``lax.select_n`` can choose between (not a token)."""
    return all(hasattr(leaf, "dtype") and not jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.extended)
               for value in values for leaf in jax.tree_util.tree_leaves(value))


@lowering("Conditional")
def conditional(ctx: LoweringContext, selector: Any, *operands: Any) -> Any:
    if "true_computation" in ctx.attrs:  # Conditional(predicate, true_operand, ..., false_operand, ...)
        true_operand, false_operand = operands
        index = lax.convert_element_type(lax.bitwise_not(selector), jnp.int32)  # true -> branch 0
        computations, branch_operands = [ctx.attr("true_computation"), ctx.attr("false_computation")], \
            [true_operand, false_operand]
    else:
        branch_operands, = operands
        computations = ctx.attr("branch_computations")
        count = len(computations)
        # lax.switch clamps the index into range; XLA runs the last branch for any out-of-range index
        index = jnp.where((selector >= 0) & (selector < count), selector, count - 1)
    # Branches that are one computation run as one: the operand is chosen first, then the computation runs
    # once. XLA copies a computation into every branch that calls it (and flattens calls), so a program
    # nesting a Conditional with the same branch twice grew as 2^depth (a MemoryError at depth 32).
    distinct: list[Any] = []
    for comp in computations:
        if all(comp is not d for d in distinct):
            distinct.append(comp)
    if len(distinct) < len(computations) and _selectable(list(branch_operands)):
        group = [next(k for k, d in enumerate(distinct) if d is comp) for comp in computations]
        chosen = [jnp.int32(g) for g in group]
        group_index = lax.select_n(index, *chosen) if len(chosen) > 1 else chosen[0]
        arms = []
        for k, comp in enumerate(distinct):
            members = [b for b, g in enumerate(group) if g == k]
            picked = [branch_operands[b] for b in members]
            if len(members) == 1:
                operand = picked[0]
            else:  # the operand of the branch taken, among the branches running this computation
                where = lax.select_n(index, *[jnp.int32(members.index(b)) if b in members else jnp.int32(0)
                                              for b in range(len(computations))])
                operand = jax.tree_util.tree_map(lambda *leaves, w=where: lax.select_n(w, *leaves), *picked)
            arms.append((comp, operand))
        if len(arms) == 1:
            return _branch(ctx, arms[0][0])(arms[0][1])
        return lax.switch(group_index, [lambda ops, k=k: _branch(ctx, arms[k][0])(ops[k]) for k in range(len(arms))],
                          tuple(operand for _, operand in arms))
    if "true_computation" in ctx.attrs:
        return lax.cond(selector, lambda ops: _branch(ctx, computations[0])(ops[0]),
                        lambda ops: _branch(ctx, computations[1])(ops[1]), tuple(branch_operands))
    branches = [lambda ops, b=b: _branch(ctx, computations[b])(ops[b]) for b in range(len(computations))]
    return lax.switch(index, branches, tuple(branch_operands))


@lowering("OptimizationBarrier")
def optimization_barrier(ctx: LoweringContext, operand: Any) -> Any:
    return lax.optimization_barrier(operand)

