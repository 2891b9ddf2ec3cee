"""Reference evaluators of the token and side-effect ops.

Tokens are :data:`~backend.hlo.token.TOKEN`; Infeed takes the next value given to ``execute(...,
infeed=[...])``, Outfeed appends to its ``outfeed`` list; CustomCall runs the target registered
with :func:`~backend.runtime.custom_calls.register_custom_call_target`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from backend.hlo.token import TOKEN
from backend.reference import EvaluatorContext, evaluator
from backend.runtime import host_io
from backend.runtime.side_effects import CUSTOM_CALLS, called_computation, read_infeed, target_of


@evaluator("CreateToken")
def create_token(ctx: EvaluatorContext) -> Any:
    return TOKEN


@evaluator("AfterAll")
def after_all(ctx: EvaluatorContext, tokens: list[Any]) -> Any:
    return TOKEN


@evaluator("Infeed")
def infeed(ctx: EvaluatorContext) -> Any:
    return read_infeed("Infeed", ctx.shape)


@evaluator("InfeedWithToken")
def infeed_with_token(ctx: EvaluatorContext, token: Any) -> Any:
    return read_infeed("InfeedWithToken", ctx.shape.tuple_shapes()[0]), TOKEN


def _copy(value: Any) -> Any:
    return tuple(_copy(v) for v in value) if isinstance(value, tuple) else np.array(value)


@evaluator("Outfeed")
def outfeed(ctx: EvaluatorContext, operand: Any) -> Any:
    host_io.current_io().outfeed.append(_copy(operand))
    return TOKEN


@evaluator("OutfeedWithToken")
@evaluator("SendToHost")
def outfeed_after_token(ctx: EvaluatorContext, operand: Any, token: Any) -> Any:
    """OutfeedWithToken and SendToHost (a host channel, written through the outfeed): Outfeed ordered by the token."""
    return outfeed(ctx, operand)


@evaluator("RecvFromHost")
def recv_from_host(ctx: EvaluatorContext, token: Any) -> Any:
    return read_infeed("RecvFromHost", ctx.shape.tuple_shapes()[0]), TOKEN


@evaluator(*CUSTOM_CALLS)
def custom_call(ctx: EvaluatorContext, operands: list[Any]) -> Any:
    target = target_of(ctx)
    result = target.call(ctx.backend, operands, ctx.attr("opaque"), called_computation(ctx))
    return host_io.conform(ctx.inst.opcode, f"the result of custom-call target '{target.name}'", ctx.shape, result)
