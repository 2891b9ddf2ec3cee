"""Shape rules, one per op (or one shared rule named by the spec's ``shape_rule``).

A rule takes an :class:`OpContext` and returns the result :class:`~backend.hlo.shape.Shape`, or
raises the error that ``ctx.fail(constraint_id, message, arg=..., **values)`` returns.
Rules live in family modules of this package and register with ``@shape_rule(name)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from backend.errors import OpError
from backend.hlo.shape import Shape
from backend.registry import Registry

SHAPE_RULES: Registry[Callable[[OpContext], Shape]] = Registry("shape rule", __name__)
shape_rule = SHAPE_RULES.register


class OpContext:
    """What a shape rule sees: the op's spec, operand shapes and attributes by argument name."""

    def __init__(self, spec: Any, builder: Any, shapes: dict[str, Any], attrs: dict[str, Any],
                 operands: dict[str, Any] | None = None) -> None:
        self.spec = spec
        self.op = spec.name
        self.builder = builder
        self.shapes = shapes
        self.attrs = attrs
        self._operands = operands or {}

    def shape(self, arg: str) -> Shape:
        return self.shapes[arg]

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    def producer(self, arg: str) -> Any:
        """The instruction that computes operand ``arg`` (its ``opcode`` and ``attrs``): for ops that must take
        the result of a particular op (SendDone takes a Send's)."""
        return self.builder.instruction(self._operands[arg])

    def fail(self, constraint: str, message: str, arg: str | None = None, **values: Any) -> OpError:
        return OpError(self.op, constraint, message, arg, values)


def array_operand(ctx: OpContext, arg: str, constraint: str) -> Shape:
    """The shape of operand ``arg``, which must be an array (else ``constraint`` fails)."""
    shape = ctx.shape(arg)
    if not shape.is_array():
        raise ctx.fail(constraint, f"'{arg}' must be an array, got {shape}", arg, **{arg: str(shape)})
    return shape


def resized(shape: Shape, dim: int, size: int) -> Shape:
    """The array shape ``shape`` with dimension ``dim`` of ``size`` (static, no layout)."""
    dims = list(shape.dimensions())
    dims[dim] = size
    return Shape.array_shape(shape.element_type(), dims)
