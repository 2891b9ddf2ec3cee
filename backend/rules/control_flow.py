"""Shape rules of the control-flow ops: Call."""

from __future__ import annotations

from backend.rules import OpContext, shape_rule
from backend.shape import Shape


@shape_rule("Call")
def call(ctx: OpContext) -> Shape:
    computation = ctx.attr("computation")
    program = computation.program_shape()
    params = program.parameter_shapes()
    operands = ctx.shape("operands")
    if len(operands) != len(params):
        raise ctx.fail("C1", f"computation '{computation.name}' takes {len(params)} parameters, got {len(operands)} "
                       "operands", "operands", parameters=[str(p) for p in params])
    for i, (operand, param) in enumerate(zip(operands, params)):
        if operand != param:
            raise ctx.fail("C2", f"operand {i} is {operand}, but parameter {i} of '{computation.name}' is {param}",
                           "operands", operand=str(operand), parameter=str(param))
    return program.result_shape()
