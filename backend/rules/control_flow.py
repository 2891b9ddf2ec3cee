"""Shape rules of the control-flow ops: Call, CompositeCall, While, Conditional, OptimizationBarrier."""

from __future__ import annotations

from typing import Any

from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


def _check_call(ctx: OpContext, computation: Any, operands: list[Shape], arg: str, count: str, match: str) -> Shape:
    """``computation`` applied to ``operands``: constraint ``count`` (number), ``match`` (shapes)."""
    params = computation.program_shape().parameter_shapes()
    if len(operands) != len(params):
        raise ctx.fail(count, f"computation '{computation.name}' takes {len(params)} parameters, got "
                       f"{len(operands)} operands", arg, parameters=[str(p) for p in params])
    for i, (operand, param) in enumerate(zip(operands, params)):
        if operand != param:
            raise ctx.fail(match, f"operand {i} is {operand}, but parameter {i} of '{computation.name}' is {param}",
                           arg, operand=str(operand), parameter=str(param))
    return computation.program_shape().result_shape()


@shape_rule("Call")
def call(ctx: OpContext) -> Shape:
    return _check_call(ctx, ctx.attr("computation"), ctx.shape("operands"), "operands", "C1", "C2")


@shape_rule("CompositeCall")
def composite_call(ctx: OpContext) -> Shape:
    return _check_call(ctx, ctx.attr("computation"), ctx.shape("operands"), "operands", "C1", "C2")


def _one_parameter(ctx: OpContext, computation: Any, operand: Shape, role: str, arg: str, constraint: str) -> Shape:
    """``computation`` takes exactly one parameter, of ``operand``'s shape; its result shape."""
    program = computation.program_shape()
    params = program.parameter_shapes()
    if len(params) != 1 or params[0] != operand:
        got = ", ".join(str(p) for p in params) or "no parameters"
        raise ctx.fail(constraint, f"{role} '{computation.name}' must take one parameter of shape {operand}, "
                       f"it takes ({got})", arg, parameters=[str(p) for p in params], expected=str(operand))
    return program.result_shape()


@shape_rule("While")
def while_(ctx: OpContext) -> Shape:
    init = ctx.shape("init")
    condition, body = ctx.attr("condition"), ctx.attr("body")
    cond_result = _one_parameter(ctx, condition, init, "condition", "condition", "C1")
    if cond_result != Shape.scalar_shape(PrimitiveType.PRED):
        raise ctx.fail("C2", f"condition '{condition.name}' must return pred[], it returns {cond_result}",
                       "condition", result=str(cond_result))
    body_result = _one_parameter(ctx, body, init, "body", "body", "C3")
    if body_result != init:
        raise ctx.fail("C4", f"body '{body.name}' must return the shape of init {init}, it returns {body_result}",
                       "body", result=str(body_result), init=str(init))
    return init


@shape_rule("Conditional")
def conditional(ctx: OpContext) -> Shape:
    if "predicate" in ctx.shapes:
        selector, selector_type, arg = ctx.shape("predicate"), PrimitiveType.PRED, "predicate"
        branches = [(ctx.attr("true_computation"), ctx.shape("true_operand"), "true_computation"),
                    (ctx.attr("false_computation"), ctx.shape("false_operand"), "false_computation")]
    else:
        selector, selector_type, arg = ctx.shape("branch_index"), PrimitiveType.S32, "branch_index"
        computations, operands = ctx.attr("branch_computations"), ctx.shape("branch_operands")
        if not computations or len(computations) != len(operands):
            raise ctx.fail("C4", f"there must be N >= 1 branch computations and as many branch operands, got "
                           f"{len(computations)} computations and {len(operands)} operands", "branch_operands",
                           computations=len(computations), operands=len(operands))
        branches = [(c, o, f"branch_computations[{b}]") for b, (c, o) in enumerate(zip(computations, operands))]
    if selector != Shape.scalar_shape(selector_type):
        want = "pred[]" if selector_type == PrimitiveType.PRED else "s32[]"
        raise ctx.fail("C1", f"{arg} must be {want}, got {selector}", arg, **{arg: str(selector)})
    results = [_one_parameter(ctx, comp, operand, name, name, "C2") for comp, operand, name in branches]
    for (comp, _, name), result in zip(branches[1:], results[1:]):
        if result != results[0]:
            raise ctx.fail("C3", f"every branch must return the same shape: '{branches[0][0].name}' returns "
                           f"{results[0]}, '{comp.name}' ({name}) returns {result}", name,
                           results=[str(r) for r in results])
    return results[0]


@shape_rule("OptimizationBarrier")
def optimization_barrier(ctx: OpContext) -> Shape:
    return ctx.shape("operand")
