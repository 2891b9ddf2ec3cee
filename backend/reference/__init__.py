"""The NumPy reference interpreter: one small evaluator per op, found by name.

Evaluators live in family modules of this package and register with ``@evaluator("Op")``;
they take ``(ctx, *operands)`` (``ctx``: an :data:`EvaluatorContext`; NumPy arrays) and return a NumPy
array (or a tuple).
``@implementation_defined("Op")`` registers, for ops whose spec names implementation-defined
behaviour, a function returning ``{id: boolean mask over the result}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate

from backend.reference.devices import DeviceContext
from backend.registry import Registry
from backend.runtime.context import OpRunContext

#: An evaluator's and a mask function's ``ctx``: the run context, its ``devices`` a
#: :class:`~backend.reference.devices.DeviceContext`.
EvaluatorContext = OpRunContext[DeviceContext]
Evaluator = Callable[Concatenate[EvaluatorContext, ...], Any]
MaskFunction = Callable[Concatenate[EvaluatorContext, ...], dict[str, Any]]

EVALUATORS: Registry[Evaluator] = Registry("reference evaluator", __name__)
evaluator = EVALUATORS.register
IMPLEMENTATION_DEFINED: Registry[MaskFunction] = Registry("implementation-defined mask", __name__)
implementation_defined = IMPLEMENTATION_DEFINED.register
