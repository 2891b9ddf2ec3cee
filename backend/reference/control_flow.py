"""Reference evaluators of the control-flow ops.

Call, CompositeCall and Conditional hand their sub-computation to the walker (``ctx.tail_call``),
which runs it on its own frame stack: nesting them costs no Python stack.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, Within, root_outcomes
from backend.runtime import control_flow as shared


@evaluator("Call")
def call(ctx: EvaluatorContext, operands: list[Any]) -> Any:
    return shared.call(ctx, operands)


@evaluator("CompositeCall")
def composite_call(ctx: EvaluatorContext, operands: list[Any]) -> Any:
    return shared.composite_call(ctx, operands)


@evaluator("While")
def while_(ctx: EvaluatorContext, init: Any) -> Any:
    condition, body = ctx.attr("condition"), ctx.attr("body")
    state = init
    while bool(np.asarray(ctx.call(condition, [state]))):
        state = ctx.call(body, [state])
    return state


def branch_number(index: int, count: int) -> int:
    """The branch a branch_index selects: out-of-range indices (< 0 or >= N) select the last branch."""
    return index if 0 <= index < count else count - 1


@evaluator("Conditional")
def conditional(ctx: EvaluatorContext, selector: Any, *operands: Any) -> Any:
    if "true_computation" in ctx.attrs:  # Conditional(predicate, true_operand, ..., false_operand, ...)
        true_operand, false_operand = operands
        if bool(np.asarray(selector)):
            return ctx.tail_call(ctx.attr("true_computation"), [true_operand])
        return ctx.tail_call(ctx.attr("false_computation"), [false_operand])
    branch_operands, = operands
    b = branch_number(int(np.asarray(selector)), len(branch_operands))
    return ctx.tail_call(ctx.attr("branch_computations")[b], [branch_operands[b]])


@evaluator("OptimizationBarrier")
def optimization_barrier(ctx: EvaluatorContext, operand: Any) -> Any:
    return operand


@implementation_defined("Call")
def call_outcomes(ctx: EvaluatorContext, operands: list[Any]) -> dict[str, Allowed]:
    return callee_outcomes(ctx, ctx.attr("computation"), operands)


def callee_outcomes(ctx: EvaluatorContext, computation: Any, operands: list[Any]) -> dict[str, Allowed]:
    """``callee``: the elements where the called computation's root op is implementation-defined (a
    Call of Add inherits Add's subnormal flushing; found by the fuzzer), with the root op's outcomes
    there: its entries' XLA outcomes, and their other outcomes. (Call's, and every op that calls a
    computation on its operands: Fusion.)"""
    import specs

    root = computation.root_instruction
    table = root_outcomes(computation, operands)
    if not table:
        return {}
    entries = specs.get(root.opcode).implementation_defined
    shape = ctx.shape.dimensions()
    covered = np.zeros(shape, bool)
    xla: list[Within] = []
    other: list[Within] = []
    for key, allowed in table.items():
        mask = np.broadcast_to(np.asarray(allowed.mask, bool), shape)
        covered |= mask
        for name, outcome in allowed.outcomes.items():
            (xla if name == entries[key].xla else other).append(Within(mask, outcome))
    return {"callee": Allowed(covered, {"callee_xla": xla, "callee_other": other})}
