"""Building a small computation over parameters and running it on a backend: the tests' one way to do it.

Each positional argument after the op (or the ``build`` callable) stands for one parameter, numbered in order and
named ``p0``, ``p1``, ...: a value (a NumPy array or scalar, a token, a tuple of those) gives the parameter its
shape and is passed to ``execute``; a :class:`~backend.Shape` or shape text (``"f32[2,3]"``) is a parameter
without a value (for computations that are only built, or whose arguments come later). An op is an op's name
(``"Add"``, keyword attributes after the operands) or a callable of the parameters (``ops.Select``, a lambda that
passes attributes positionally).

    run_op("jax", "Add", lhs, rhs, broadcast_dimensions=[0])               # the first result
    run_op("reference", lambda x: ops.ReducePrecision(x, 5, 10), x)
    run_built("reference", lambda x, y: ops.Tuple(x.builder, [ops.Max(x, y), y]), a, b)   # every result
    run_built("reference", lambda b, x: ops.AddDependency(x, ops.CreateToken(b)), a, with_builder=True)
    op_computation("Conv", Shape.array_shape("f32", (1, 1, 3)), "f32[1,1,2]", window_strides=[1], padding="SAME")
    op_error("Exp", "s32[3]").constraint                                   # building raises OpError: which one

Runs on several devices pass each device's arguments themselves (``execute(..., replicas=...)``); their
computation still comes from :func:`build_computation` with Shape arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from backend import OpError, Shape, XlaBuilder, get_backend, ops
from backend.hlo.graph import XlaComputation, XlaOp
from backend.hlo.shape import shape_from_pyval


def has_value(arg: Any) -> bool:
    """Whether ``arg`` is a value (passed to ``execute``) rather than a shape (a parameter without a value)."""
    return not isinstance(arg, Shape | str)


def parameters(builder: XlaBuilder, *args: Any) -> list[XlaOp]:
    """Parameters ``p0``, ``p1``, ... of ``builder``, shaped like ``args`` (values, Shapes or shape text)."""
    return [ops.Parameter(builder, i, shape_from_pyval(a) if has_value(a) else a, f"p{i}") for i, a in enumerate(args)]


def array_parameter(builder: XlaBuilder, number: int, etype: Any, dims: Any, name: str | None = None) -> XlaOp:
    """Parameter ``number`` of ``builder``: an array of ``etype`` and ``dims``, named ``p<number>`` unless named."""
    return ops.Parameter(builder, number, Shape.array_shape(etype, dims), name or f"p{number}")


def build_computation(build: Callable[..., Any], *args: Any, with_builder: bool = False,
                      name: str = "t") -> XlaComputation:
    """The computation ``build(*parameters)`` adds ops to (``build(builder, *parameters)`` with ``with_builder``);
    its root is the last op added."""
    b = XlaBuilder(name)
    params = parameters(b, *args)
    if with_builder:
        build(b, *params)
    else:
        build(*params)
    return b.build()


def _applied(op: str | Callable[..., Any], attrs: dict[str, Any]) -> Callable[..., Any]:
    if isinstance(op, str):  # as one instruction (the tuple-shaped XlaOp of Eigh, SVD...)
        return lambda *params: ops.build(op, *params, **attrs)
    return lambda *params: op(*params, **attrs)


def op_computation(op: str | Callable[..., Any], *args: Any, **attrs: Any) -> XlaComputation:
    """``op(*parameters, **attrs)`` over parameters shaped like ``args``."""
    return build_computation(_applied(op, attrs), *args, name=op.lower() if isinstance(op, str) else "t")


def _execute(backend: str, computation: XlaComputation, args: tuple[Any, ...]) -> list[Any]:
    return get_backend(backend).execute(computation, [a for a in args if has_value(a)])


def run_built(backend: str, build: Callable[..., Any], *args: Any, with_builder: bool = False) -> list[Any]:
    """Every result of :func:`build_computation` run on ``backend`` with the values among ``args``."""
    return _execute(backend, build_computation(build, *args, with_builder=with_builder), args)


def run_op(backend: str, op: str | Callable[..., Any], *args: Any, **attrs: Any) -> Any:
    """The first result of ``op(*parameters, **attrs)`` run on ``backend`` with the values among ``args``."""
    return _execute(backend, op_computation(op, *args, **attrs), args)[0]


def build_error(build: Callable[..., Any], *args: Any, with_builder: bool = False) -> OpError:
    """The OpError that :func:`build_computation` raises (the test fails if it builds)."""
    with pytest.raises(OpError) as info:
        build_computation(build, *args, with_builder=with_builder)
    return info.value


def op_error(op: str | Callable[..., Any], *args: Any, **attrs: Any) -> OpError:
    """The OpError that ``op(*parameters, **attrs)`` raises over parameters shaped like ``args``."""
    return build_error(_applied(op, attrs), *args)
