"""Broadcasting, after the broadcasting document.

* scalars broadcast over any array;
* a lower-rank operand is matched to the higher-rank one by ``broadcast_dimensions`` (strictly
  increasing; ``broadcast_dimensions[i]`` is the higher-rank dimension matched by dimension ``i``);
* same-rank arrays broadcast where each dimension pair is equal or one of them is 1 (degenerate);
* both compose: the lower-rank operand is first placed by ``broadcast_dimensions``, then the
  degenerate rule applies.

:func:`binary_result_dims` raises :class:`BroadcastError` with the violated rule; the op's shape
rule turns it into an :class:`~backend.errors.OpError` naming the op's constraint id.
"""

from __future__ import annotations

from collections.abc import Sequence


class BroadcastError(ValueError):
    """``rule`` is one of ``dims_length``, ``dims_range``, ``dims_order``, ``same_rank_dims``,
    ``incompatible``."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(message)


def binary_result_dims(lhs: Sequence[int], rhs: Sequence[int],
                       broadcast_dimensions: Sequence[int] = ()) -> tuple[int, ...]:
    """The result dimensions of an element-wise binary op, or :class:`BroadcastError`."""
    lhs, rhs, bd = tuple(lhs), tuple(rhs), tuple(broadcast_dimensions)
    if len(lhs) == len(rhs):
        if bd and bd != tuple(range(len(lhs))):
            raise BroadcastError("same_rank_dims", f"broadcast_dimensions must be empty or the identity for "
                                 f"operands of the same rank, got {list(bd)} for ranks {len(lhs)}")
        return degenerate_dims(lhs, rhs)
    if not lhs or not rhs:
        if bd:
            raise BroadcastError("dims_length", f"a scalar operand takes no broadcast_dimensions, got {list(bd)}")
        return lhs or rhs
    high, low = (lhs, rhs) if len(lhs) > len(rhs) else (rhs, lhs)
    if len(bd) != len(low):
        raise BroadcastError("dims_length", f"broadcast_dimensions {list(bd)} must have one entry per dimension of "
                             f"the lower-rank operand (rank {len(low)})")
    for d in bd:
        if not 0 <= d < len(high):
            raise BroadcastError("dims_range", f"broadcast dimension {d} is out of range for the higher-rank operand "
                                 f"of rank {len(high)}")
    if any(a >= b for a, b in zip(bd, bd[1:])):
        raise BroadcastError("dims_order", f"broadcast_dimensions must be strictly increasing, got {list(bd)}")
    placed = [1] * len(high)
    for i, d in enumerate(bd):
        placed[d] = low[i]
    try:
        return degenerate_dims(high, tuple(placed))
    except BroadcastError:
        for i, d in enumerate(bd):
            if low[i] != high[d] and 1 not in (low[i], high[d]):
                raise BroadcastError("incompatible", f"dimension {i} of the lower-rank operand (size {low[i]}) does "
                                     f"not match dimension {d} of the higher-rank operand (size {high[d]})") from None
        raise


def degenerate_dims(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Same-rank broadcasting: sizes equal or one of them 1; the result takes the larger."""
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and 1 not in (x, y):
            raise BroadcastError("incompatible", f"shapes {list(a)} and {list(b)} are incompatible in dimension {i} "
                                 f"({x} vs {y}): sizes must be equal or one of them 1")
        out.append(y if x == 1 else x)
    return tuple(out)


def operand_placement(operand_rank: int, result_rank: int, broadcast_dimensions: Sequence[int]) -> tuple[int, ...]:
    """Which result dimension each operand dimension maps to (for a BroadcastInDim)."""
    if operand_rank == result_rank:
        return tuple(range(result_rank))
    if operand_rank == 0:
        return ()
    return tuple(broadcast_dimensions)
