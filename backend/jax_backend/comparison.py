"""jax lowerings of the comparison and selection ops: Compare and its named forms, Select, Clamp.

FLOAT/SIGNED/UNSIGNED comparisons are ``lax.eq`` ... ``lax.lt``. jax.lax has no public total-order
comparison function, so TOTALORDER comparisons bind the total-order compare primitives that
``jax.extend`` exports (``eq_to``, ``lt_to``, ``le_to``; they lower to an HLO compare of type
TOTALORDER), with NE as the negation of EQ and GT/GE as LT/LE with the operands swapped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.extend.core.primitives as primitives
from jax import lax

from backend.api_types import ComparisonDirection, ComparisonType
from backend.jax_backend import lowering
from backend.rules.comparison import NAMED_COMPARISONS

D = ComparisonDirection
_FUNCTIONS: dict[ComparisonDirection, Callable[[Any, Any], Any]] = {
    D.EQ: lax.eq, D.NE: lax.ne, D.GE: lax.ge, D.GT: lax.gt, D.LE: lax.le, D.LT: lax.lt,
}


def _eq_to(a: Any, b: Any) -> Any:
    return primitives.eq_to_p.bind(a, b)


def _lt_to(a: Any, b: Any) -> Any:
    return primitives.lt_to_p.bind(a, b)


def _le_to(a: Any, b: Any) -> Any:
    return primitives.le_to_p.bind(a, b)


_TOTAL_ORDER_FUNCTIONS: dict[ComparisonDirection, Callable[[Any, Any], Any]] = {
    D.EQ: _eq_to,
    D.NE: lambda a, b: lax.bitwise_not(_eq_to(a, b)),
    D.GE: lambda a, b: _le_to(b, a),
    D.GT: lambda a, b: _lt_to(b, a),
    D.LE: _le_to,
    D.LT: _lt_to,
}


def compare_arrays(lhs: Any, rhs: Any, direction: ComparisonDirection, compare_type: ComparisonType | None) -> Any:
    table = _TOTAL_ORDER_FUNCTIONS if compare_type == ComparisonType.TOTALORDER else _FUNCTIONS
    return table[direction](lhs, rhs)


@lowering("Compare")
def compare(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return compare_arrays(lhs, rhs, ctx.attr("direction"), ctx.attr("compare_type"))


def _register_named(op: str, direction: ComparisonDirection, compare_type: ComparisonType | None) -> None:
    def named(ctx: Any, lhs: Any, rhs: Any) -> Any:
        return compare_arrays(lhs, rhs, direction, compare_type)

    named.__name__ = named.__qualname__ = op
    lowering(op)(named)


for _op, (_direction, _ctype) in NAMED_COMPARISONS.items():
    _register_named(_op, _direction, _ctype)


@lowering("Select")
def select(ctx: Any, pred: Any, on_true: Any, on_false: Any) -> Any:
    return lax.select(pred, on_true, on_false)


@lowering("Clamp")
def clamp(ctx: Any, min_: Any, operand: Any, max_: Any) -> Any:
    return lax.clamp(min_, operand, max_)
