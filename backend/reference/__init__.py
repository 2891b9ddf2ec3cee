"""The NumPy reference interpreter: one small evaluator per op, found by name.

Evaluators live in family modules of this package and register with ``@evaluator("Op")``;
they take ``(ctx, *operands)`` (NumPy arrays) and return a NumPy array (or a tuple).
``@implementation_defined("Op")`` registers, for ops whose spec names implementation-defined
behaviour, a function returning ``{id: boolean mask over the result}``.
"""

from __future__ import annotations

from backend.registry import Registry

EVALUATORS = Registry("reference evaluator", __name__)
evaluator = EVALUATORS.register
IMPLEMENTATION_DEFINED = Registry("implementation-defined mask", __name__)
implementation_defined = IMPLEMENTATION_DEFINED.register
