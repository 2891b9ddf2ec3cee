"""Reference evaluators of the control-flow ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.reference import EVALUATORS, IMPLEMENTATION_DEFINED, evaluator, implementation_defined


@evaluator("Call")
def call(ctx: Any, operands: list[Any]) -> Any:
    return ctx.call(ctx.attr("computation"), operands)


@implementation_defined("Call")
def call_masks(ctx: Any, operands: list[Any]) -> dict[str, Any]:
    """``callee``: the elements where the called computation's root op is implementation-defined
    (a Call of Add inherits Add's subnormal flushing; found by the fuzzer)."""
    from backend.interpreter import EvalContext, GraphWalker

    computation = ctx.attr("computation")
    root = computation.root_instruction
    masks_of = IMPLEMENTATION_DEFINED.get(root.opcode)
    if masks_of is None:
        return {}
    walker = GraphWalker("reference", EVALUATORS)
    values: dict[int, Any] = {}
    for inst in computation.instructions:
        if inst.id == root.id:
            break
        values[inst.id] = EVALUATORS.get(inst.opcode)(EvalContext(inst, walker, operands),
                                                      *inst.grouped([values[o] for o in inst.operands]))
    masks = masks_of(EvalContext(root, walker, operands), *root.grouped([values[o] for o in root.operands]))
    shape = ctx.shape.dimensions()
    covered = np.zeros(shape, bool)
    for mask in masks.values():
        covered |= np.broadcast_to(np.asarray(mask, bool), shape)
    return {"callee": covered}
