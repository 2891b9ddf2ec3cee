"""Building a small computation over parameters and running it on a backend: the tests' one way to do it.

Each positional argument after the ``build`` callable (or the op's name) stands for one parameter, numbered in
order and named ``p0``, ``p1``, ...: a value (a NumPy array or scalar, a token, a tuple of those) gives the
parameter its shape and is passed to ``execute``; a :class:`~backend.Shape` or shape text (``"f32[2,3]"``) is a
parameter without a value (for computations that are only built, or whose arguments come later).

    run_op("jax", "Add", lhs, rhs, broadcast_dimensions=[0])   # the first result
    run_built("reference", lambda x, y: ops.Tuple(x.builder, [ops.Max(x, y), y]), a, b)   # every result
    run_built("reference", lambda b, x: ops.AddDependency(x, ops.CreateToken(b)), a, with_builder=True)
    op_computation("Conv", Shape.array_shape("f32", (1, 1, 3)), rhs_shape, window_strides=[1], padding="SAME")

Runs on several devices pass each device's arguments themselves (``execute(..., replicas=...)``); the
computation can still come from :func:`build_computation` with Shape arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from backend import Shape, XlaBuilder, get_backend, ops
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


def op_computation(op: str, *args: Any, **attrs: Any) -> XlaComputation:
    """``ops.<op>(*parameters, **attrs)`` over parameters shaped like ``args``."""
    return build_computation(lambda *params: getattr(ops, op)(*params, **attrs), *args, name=op.lower())


def run_built(backend: str, build: Callable[..., Any], *args: Any, with_builder: bool = False) -> list[Any]:
    """Every result of :func:`build_computation` run on ``backend`` with the values among ``args``."""
    computation = build_computation(build, *args, with_builder=with_builder)
    return get_backend(backend).execute(computation, [a for a in args if has_value(a)])


def run_op(backend: str, op: str, *args: Any, **attrs: Any) -> Any:
    """The first result of ``ops.<op>(*parameters, **attrs)`` run on ``backend`` with the values among ``args``."""
    return get_backend(backend).execute(op_computation(op, *args, **attrs), [a for a in args if has_value(a)])[0]
