"""Reference evaluators of the internal HLO instructions.

Copy, Domain and AddDependency pass their operand's value on; Bitcast reads the operand's linear memory
under the result's layout; Fusion and AsyncStart call their computation; the Start/Done pairs carry
their result in the Start's tuple. A Start's ``u32[]`` context is opaque to the program: 0 here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.hlo.shape import bitcast_source_positions
from backend.reference import EVALUATORS, EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, Within, any_value
from backend.reference.control_flow import callee_outcomes
from backend.runtime import internal as shared
from backend.runtime.collective_view import collective_result
from backend.runtime.context import ContextView

#: the context a Start gives (XLA's runtime keeps its own handle there; the program never reads it)
CONTEXT = np.uint32(0)


@evaluator("Copy", "Domain", "AsyncUpdate")
def identity(ctx: EvaluatorContext, operand: Any) -> Any:
    return shared.identity(ctx, operand)


@evaluator("AddDependency")
def add_dependency(ctx: EvaluatorContext, operand: Any, token: Any) -> Any:
    return shared.add_dependency(ctx, operand, token)


@evaluator("Bitcast")
def bitcast(ctx: EvaluatorContext, operand: Any) -> np.ndarray:
    positions = bitcast_source_positions(ctx.operand_shapes[0], ctx.shape)
    padding = np.asarray([ctx.operand_shapes[0].layout().padding_value], dtype=operand.dtype)
    return np.concatenate([np.asarray(operand).reshape(-1), padding])[positions]


@evaluator("CopyStart")
def copy_start(ctx: EvaluatorContext, operand: Any) -> tuple[Any, ...]:
    return np.array(operand, copy=True), operand, CONTEXT


@evaluator("CopyDone")
def copy_done(ctx: EvaluatorContext, operand: tuple[Any, ...]) -> Any:
    return shared.copy_done(ctx, operand)


@evaluator("AsyncDone")
def async_done(ctx: EvaluatorContext, operand: tuple[Any, ...]) -> Any:
    return shared.async_done(ctx, operand)


@evaluator("Fusion")
def fusion(ctx: EvaluatorContext, operands: list[Any]) -> Any:
    return shared.fusion(ctx, operands)


@evaluator("AsyncStart")
def async_start(ctx: EvaluatorContext, operands: list[Any]) -> tuple[Any, ...]:
    return tuple(operands), ctx.call(ctx.attr("computation"), operands), CONTEXT


def _context_outcomes(ctx: EvaluatorContext, count: int = 1) -> dict[str, Allowed]:
    """``context``: the result's last ``count`` arrays (a Start's u32[] contexts) are the runtime's handles: any
    u32 value. One mask per array of the result, nested tuples flattened depth-first."""
    leaves = ctx.shape.leaf_shapes()
    masks = tuple(np.zeros(leaf.dimensions(), bool) for leaf in leaves[:-count]) + (np.ones((), bool),) * count
    return {"context": Allowed(masks, {"any_u32": any_value})}


@implementation_defined("CopyStart")
def copy_start_outcomes(ctx: EvaluatorContext, operand: Any) -> dict[str, Allowed]:
    return _context_outcomes(ctx)


@implementation_defined("AsyncStart")
def async_start_outcomes(ctx: EvaluatorContext, operands: list[Any]) -> dict[str, Allowed]:
    """``context`` as CopyStart's; ``callee`` as Call's, in the wrapped computation's result (an array result:
    the leaf after the operands' leaves)."""
    table = _context_outcomes(ctx)
    state = ctx.shape.tuple_shapes()
    if state[1].is_array():
        result_ctx = ContextView(ctx, shape=state[1])  # the op computing only the wrapped computation's result
        callee = callee_outcomes(result_ctx, ctx.attr("computation"), operands).get("callee")
        if callee is not None:
            table["callee"] = _at_leaf(callee, len(state[0].leaf_shapes()), ctx.shape.leaf_shapes())
    return table


def _never(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return np.zeros(np.shape(actual), bool)


def _at_leaf(allowed: Allowed, leaf: int, leaves: list[Any]) -> Allowed:
    """An Allowed over one array lifted to the array at position ``leaf`` of a tuple result of ``leaves``."""
    def mask(m: Any) -> tuple[np.ndarray, ...]:
        return tuple(np.broadcast_to(np.asarray(m, bool), s.dimensions()) if i == leaf
                     else np.zeros(s.dimensions(), bool) for i, s in enumerate(leaves))

    def outcome(o: Any) -> Any:
        if isinstance(o, list):
            return [outcome(x) for x in o]
        if isinstance(o, Within):
            return Within(mask(o.mask), outcome(o.outcome))
        return tuple(o if i == leaf else _never for i in range(len(leaves)))
    return Allowed(mask(allowed.mask), {name: outcome(o) for name, o in allowed.outcomes.items()})


@implementation_defined("Fusion")
def fusion_outcomes(ctx: EvaluatorContext, operands: list[Any]) -> dict[str, Allowed]:
    """``callee``: as Call's (the fused computation's root op's outcomes)."""
    return callee_outcomes(ctx, ctx.attr("fused_computation"), operands)


# -- the collective Start/Done pairs: the collective's own evaluator, in the Start's tuple ----------------
@evaluator("AllReduceStart")
def all_reduce_start(ctx: EvaluatorContext, operand: Any) -> Any:
    return collective_result(EVALUATORS, ctx, operand)


@evaluator("AllGatherStart")
def all_gather_start(ctx: EvaluatorContext, operand: Any) -> tuple[Any, ...]:
    return operand, collective_result(EVALUATORS, ctx, operand)


@evaluator("CollectivePermuteStart")
def collective_permute_start(ctx: EvaluatorContext, operand: Any) -> tuple[Any, ...]:
    return operand, collective_result(EVALUATORS, ctx, operand), CONTEXT, CONTEXT


@implementation_defined("CollectivePermuteStart")
def collective_permute_start_outcomes(ctx: EvaluatorContext, operand: Any) -> dict[str, Allowed]:
    return _context_outcomes(ctx, count=2)


@evaluator("AllReduceDone")
def all_reduce_done(ctx: EvaluatorContext, operand: Any) -> Any:
    return shared.all_reduce_done(ctx, operand)


@evaluator("AllGatherDone", "CollectivePermuteDone")
def received(ctx: EvaluatorContext, operand: tuple[Any, ...]) -> Any:
    return shared.received(ctx, operand)
