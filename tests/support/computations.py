"""The small computations tests hand to ops: a reducer, a comparator, a scatter's combiner, a fused body."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from backend import PrimitiveType, Shape, XlaBuilder, ops
from backend.hlo.graph import XlaComputation, XlaOp


def binary_computation(op: str | Callable[..., Any], operand: Any = PrimitiveType.F32,
                       name: str | None = None) -> XlaComputation:
    """``op(x, y)`` of two parameters of one shape: ``operand`` is a Shape, or an element type for scalars;
    ``op`` an ops function (or any callable of the two parameters) or an op's name."""
    fn = getattr(ops, op) if isinstance(op, str) else op
    shape = operand if isinstance(operand, Shape) else Shape.scalar_shape(operand)
    default = op if isinstance(op, str) else getattr(op, "__name__", "")
    b = XlaBuilder(name or (default.lower() if default.isidentifier() else "binary"))
    fn(ops.Parameter(b, 0, shape, "x"), ops.Parameter(b, 1, shape, "y"))
    return b.build()


def scalar_parameters(name: str, *etypes: Any) -> tuple[XlaBuilder, list[XlaOp]]:
    """A builder for a sub-computation called ``name`` and its scalar parameters ``p0``, ``p1``, ... of ``etypes``."""
    sub = XlaBuilder(name)
    return sub, [ops.Parameter(sub, i, Shape.scalar_shape(t), f"p{i}") for i, t in enumerate(etypes)]
