"""jax lowerings of the internal HLO instructions (the reference's, in jax.lax: see
backend/reference/internal.py). Bitcast gathers by the same static positions as the reference."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from backend.hlo.shape import bitcast_source_positions
from backend.jax_backend import LOWERINGS, LoweringContext, lowering
from backend.runtime import internal as shared
from backend.runtime.collective_view import collective_result


def _context() -> Any:
    return jnp.zeros((), jnp.uint32)


@lowering("Copy", "Domain", "AsyncUpdate")
def identity(ctx: LoweringContext, operand: Any) -> Any:
    return shared.identity(ctx, operand)


@lowering("AddDependency")
def add_dependency(ctx: LoweringContext, operand: Any, token: Any) -> Any:
    return shared.add_dependency(ctx, operand, token)


@lowering("Bitcast")
def bitcast(ctx: LoweringContext, operand: Any) -> Any:
    positions = bitcast_source_positions(ctx.operand_shapes[0], ctx.shape)
    padding = jnp.full((1,), ctx.operand_shapes[0].layout().padding_value, operand.dtype)
    return jnp.concatenate([operand.reshape(-1), padding])[jnp.asarray(positions)]


@lowering("CopyStart")
def copy_start(ctx: LoweringContext, operand: Any) -> tuple[Any, ...]:
    return jnp.copy(operand), operand, _context()


@lowering("CopyDone")
def copy_done(ctx: LoweringContext, operand: tuple[Any, ...]) -> Any:
    return shared.copy_done(ctx, operand)


@lowering("AsyncDone")
def async_done(ctx: LoweringContext, operand: tuple[Any, ...]) -> Any:
    return shared.async_done(ctx, operand)


@lowering("Fusion")
def fusion(ctx: LoweringContext, operands: list[Any]) -> Any:
    return shared.fusion(ctx, operands)


@lowering("AsyncStart")
def async_start(ctx: LoweringContext, operands: list[Any]) -> tuple[Any, ...]:
    return tuple(operands), ctx.call(ctx.attr("computation"), operands), _context()


@lowering("AllReduceStart")
def all_reduce_start(ctx: LoweringContext, operand: Any) -> Any:
    return collective_result(LOWERINGS, ctx, operand)


@lowering("AllGatherStart")
def all_gather_start(ctx: LoweringContext, operand: Any) -> tuple[Any, ...]:
    return operand, collective_result(LOWERINGS, ctx, operand)


@lowering("CollectivePermuteStart")
def collective_permute_start(ctx: LoweringContext, operand: Any) -> tuple[Any, ...]:
    return operand, collective_result(LOWERINGS, ctx, operand), _context(), _context()


@lowering("AllReduceDone")
def all_reduce_done(ctx: LoweringContext, operand: Any) -> Any:
    return shared.all_reduce_done(ctx, operand)


@lowering("AllGatherDone", "CollectivePermuteDone")
def received(ctx: LoweringContext, operand: tuple[Any, ...]) -> Any:
    return shared.received(ctx, operand)
