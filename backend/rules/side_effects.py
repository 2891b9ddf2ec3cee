"""Shape rules of the token and side-effect ops: CreateToken, AfterAll, Infeed, Outfeed, SendToHost, RecvFromHost,
CustomCall."""

from __future__ import annotations

from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


def _data_shape_problem(shape: Shape) -> str | None:
    """Why ``shape`` cannot be infeed/outfeed data (an array, or a tuple of arrays), or None."""
    if shape.is_token():
        return "a token is not data"
    if shape.is_tuple():
        nested = [s for s in shape.tuple_shapes() if not s.is_array()]
        if nested:
            return f"nested tuple (or token) shapes are not supported, got {nested[0]} inside"
    return None


def _check_token(ctx: OpContext, arg: str, constraint: str) -> None:
    shape = ctx.shape(arg)
    if not shape.is_token():
        raise ctx.fail(constraint, f"'{arg}' must be a token, got {shape}", arg, **{arg: str(shape)})


@shape_rule("CreateToken")
def create_token(ctx: OpContext) -> Shape:
    return Shape.token_shape()


@shape_rule("AfterAll")
def after_all(ctx: OpContext) -> Shape:
    if not ctx.shape("tokens"):  # XlaBuilder: "AfterAll requires at least one operand"
        raise ctx.fail("C1", "tokens must be non-empty (CreateToken makes a token from none)", "tokens")
    for i, shape in enumerate(ctx.shape("tokens")):
        if not shape.is_token():
            raise ctx.fail("C1", f"tokens[{i}] must be a token, got {shape}", "tokens", index=i, shape=str(shape))
    return Shape.token_shape()


def _infeed_shape(ctx: OpContext, constraint: str) -> Shape:
    shape = ctx.attr("shape")
    problem = _data_shape_problem(shape)
    if problem:
        raise ctx.fail(constraint, f"the infeed shape must be an array or a tuple of arrays: {problem}", "shape",
                       shape=str(shape))
    return shape


@shape_rule("Infeed")
def infeed(ctx: OpContext) -> Shape:
    return _infeed_shape(ctx, "C1")


@shape_rule("InfeedWithToken")
def infeed_with_token(ctx: OpContext) -> Shape:
    _check_token(ctx, "token", "C1")
    return Shape.tuple_shape([_infeed_shape(ctx, "C2"), Shape.token_shape()])


def _check_outfeed(ctx: OpContext, compatible: str, data: str) -> None:
    operand, declared = ctx.shape("operand"), ctx.attr("shape_with_layout")
    problem = _data_shape_problem(operand)
    if problem:
        raise ctx.fail(data, f"the outfeed operand must be an array or a tuple of arrays: {problem}", "operand",
                       operand=str(operand))
    if operand != declared:  # Shape equality ignores layouts
        raise ctx.fail(compatible, f"shape_with_layout {declared} does not match the operand's shape {operand}",
                       "shape_with_layout", operand=str(operand), shape_with_layout=str(declared))


@shape_rule("Outfeed")
def outfeed(ctx: OpContext) -> Shape:
    _check_outfeed(ctx, "C1", "C2")
    return Shape.token_shape()


@shape_rule("OutfeedWithToken")
def outfeed_with_token(ctx: OpContext) -> Shape:
    _check_token(ctx, "token", "C1")
    _check_outfeed(ctx, "C2", "C3")
    return Shape.token_shape()


@shape_rule("SendToHost")
def send_to_host(ctx: OpContext) -> Shape:
    _check_token(ctx, "token", "C1")
    operand, declared = ctx.shape("operand"), ctx.attr("shape_with_layout")
    if not operand.is_array():  # XlaBuilder: "SendToHost only supports array shapes"
        raise ctx.fail("C3", f"SendToHost sends an array, got {operand}", "operand", operand=str(operand))
    if operand != declared:
        raise ctx.fail("C2", f"shape_with_layout {declared} does not match the operand's shape {operand}",
                       "shape_with_layout", operand=str(operand), shape_with_layout=str(declared))
    return Shape.token_shape()


@shape_rule("RecvFromHost")
def recv_from_host(ctx: OpContext) -> Shape:
    _check_token(ctx, "token", "C1")
    shape = ctx.attr("shape")
    if not shape.is_array():  # XlaBuilder: "host-to-device Recv only supports array shapes"
        raise ctx.fail("C2", f"RecvFromHost receives an array, got the shape {shape}", "shape", shape=str(shape))
    return Shape.tuple_shape([shape, Shape.token_shape()])


def _subshape(shape: Shape, index: tuple[int, ...]) -> Shape | None:
    for i in index:
        if not shape.is_tuple() or i >= len(shape.tuple_shapes()):
            return None
        shape = shape.tuple_shapes()[i]
    return shape


def _custom_call_common(ctx: OpContext, result_arg: str) -> Shape:
    """C1 (a non-empty target name) for every form; the result is the declared shape."""
    name = ctx.attr("call_target_name")
    if not name:
        raise ctx.fail("C1", "call_target_name must not be empty", "call_target_name", call_target_name=name)
    return ctx.attr(result_arg)


def _check_operand_layouts(ctx: OpContext, constraint: str) -> None:
    operands, declared = ctx.shape("operands"), ctx.attr("operand_shapes_with_layout")
    if len(declared) != len(operands):
        raise ctx.fail(constraint, f"operand_shapes_with_layout has {len(declared)} shapes for {len(operands)} "
                       "operands", "operand_shapes_with_layout", count=len(declared), operands=len(operands))
    for i, (operand, shape) in enumerate(zip(operands, declared)):
        if operand != shape:
            raise ctx.fail(constraint, f"operand_shapes_with_layout[{i}] is {shape}, but operand {i} is {operand}",
                           "operand_shapes_with_layout", index=i, shape=str(shape), operand=str(operand))


def _check_aliasing(ctx: OpContext, result: Shape, constraint: str) -> None:
    operands = ctx.shape("operands")
    for output_index, (operand_index, operand_shape_index) in ctx.attr("output_operand_aliasing"):
        where = f"({list(output_index)}, ({operand_index}, {list(operand_shape_index)}))"
        if operand_index >= len(operands):
            raise ctx.fail(constraint, f"aliasing {where} names operand {operand_index}, but there are "
                           f"{len(operands)} operands", "output_operand_aliasing", operand_index=operand_index)
        out, src = _subshape(result, output_index), _subshape(operands[operand_index], operand_shape_index)
        if out is None or src is None:
            raise ctx.fail(constraint, f"aliasing {where}: no such {'output' if out is None else 'operand'} "
                           f"subshape in {result if out is None else operands[operand_index]}",
                           "output_operand_aliasing")
        if out != src:
            raise ctx.fail(constraint, f"aliasing {where}: output part {out} and operand part {src} differ",
                           "output_operand_aliasing", output=str(out), operand=str(src))


@shape_rule("CustomCall")
def custom_call(ctx: OpContext) -> Shape:
    return _custom_call_common(ctx, "shape")


@shape_rule("CustomCallWithLayout")
def custom_call_with_layout(ctx: OpContext) -> Shape:
    result = _custom_call_common(ctx, "shape_with_layout")
    _check_operand_layouts(ctx, "C5")
    return result


@shape_rule("CustomCallWithAliasing")
def custom_call_with_aliasing(ctx: OpContext) -> Shape:
    result = _custom_call_common(ctx, "shape_with_layout")
    _check_operand_layouts(ctx, "C5")
    _check_aliasing(ctx, result, "C6")
    return result


@shape_rule("CustomCallWithComputation")
def custom_call_with_computation(ctx: OpContext) -> Shape:
    result = _custom_call_common(ctx, "shape")
    _check_aliasing(ctx, result, "C5")
    return result
