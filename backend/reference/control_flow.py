"""Reference evaluators of the control-flow ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.reference import evaluator, implementation_defined
from backend.reference.allowed import Allowed, Within, root_outcomes


@evaluator("Call")
def call(ctx: Any, operands: list[Any]) -> Any:
    return ctx.call(ctx.attr("computation"), operands)


@implementation_defined("Call")
def call_outcomes(ctx: Any, operands: list[Any]) -> dict[str, Allowed]:
    """``callee``: the elements where the called computation's root op is implementation-defined (a
    Call of Add inherits Add's subnormal flushing; found by the fuzzer), with the root op's outcomes
    there: its entries' XLA outcomes, and their other outcomes."""
    import specs

    root = ctx.attr("computation").root_instruction
    table = root_outcomes(ctx.attr("computation"), operands)
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
