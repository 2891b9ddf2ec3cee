"""Reference evaluators of the higher-order ops: Map, Scan, Sort and TopK.

They follow the documents literally: Map calls its computation once per element, Scan once per
step, Sort orders each row with Python's (stable, merge-based) sort driven by the comparator, and
TopK ranks by the total order with the lower index first among equal elements.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from backend import etypes
from backend.errors import UnsupportedError
from backend.reference import evaluator, implementation_defined
from backend.reference.allowed import Allowed, any_value
from backend.rules.higher_order import sort_dimension


@evaluator("Map")
def map_(ctx: Any, operands: list[np.ndarray], static_operands: list[np.ndarray]) -> np.ndarray:
    comp = ctx.attr("computation")
    out = np.empty(ctx.shape.dimensions(), dtype=etypes.etype_to_dtype(ctx.shape.element_type()))
    for index in np.ndindex(*out.shape):
        out[index] = ctx.call(comp, [np.asarray(x[index]) for x in operands] + list(static_operands))
    return out


@evaluator("Scan")
def scan(ctx: Any, inputs: list[np.ndarray], inits: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    comp = ctx.attr("to_apply")
    d = ctx.attr("scan_dimension")
    size = inputs[0].shape[d]
    shapes = ctx.shape.tuple_shapes()
    n = len(shapes) - len(inits)
    outputs = [np.empty(s.dimensions(), dtype=etypes.etype_to_dtype(s.element_type())) for s in shapes[:n]]
    carries = [np.asarray(c) for c in inits]
    steps = range(size - 1, -1, -1) if ctx.attr("is_reverse") else range(size)
    for step in steps:
        result = ctx.call(comp, [np.take(x, step, axis=d) for x in inputs] + carries)
        values = [np.asarray(v) for v in result]
        for out, value in zip(outputs, values[:n]):
            out[(slice(None),) * d + (step,)] = value
        carries = values[n:]
    return tuple(outputs) + tuple(carries)


def _less_matrix(ctx: Any, rows: list[np.ndarray]) -> np.ndarray:
    """``less[r, i, j] = comparator(row r's element i, row r's element j)`` (operands moved to [R, n])."""
    comp = ctx.attr("comparator")
    r, n = rows[0].shape
    args = []
    for x in rows:
        args += [np.broadcast_to(x[:, :, None], (r, n, n)), np.broadcast_to(x[:, None, :], (r, n, n))]
    try:
        less = np.asarray(ctx.call(comp, args), dtype=bool)
        if less.shape == (r, n, n):
            return less
    except (ValueError, TypeError, IndexError, UnsupportedError):  # a comparator that does not vectorise
        pass
    less = np.zeros((r, n, n), dtype=bool)
    for index in np.ndindex(r, n, n):
        less[index] = bool(ctx.call(comp, [np.asarray(a[index]) for a in args]))
    return less


def sort_order(ctx: Any, operands: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The permutation sorting each row (``order[r, q]`` is the input position of sorted position q),
    the comparator matrix, and the operands moved to [rows, n]."""
    d = sort_dimension(ctx.attr("dimension"), operands[0].ndim)
    moved = [np.moveaxis(x, d, -1) for x in operands]
    n = moved[0].shape[-1]
    rows = [x.reshape(int(np.prod(x.shape[:-1], dtype=np.int64)), n) for x in moved]
    less = _less_matrix(ctx, rows) if rows[0].size else np.zeros((rows[0].shape[0], n, n), bool)
    order = np.empty(rows[0].shape, dtype=np.int64)
    for r in range(order.shape[0]):
        lt = less[r]

        def compare(i: int, j: int, lt: np.ndarray = lt) -> int:
            return -1 if lt[i, j] else 1 if lt[j, i] else 0
        order[r] = sorted(range(n), key=functools.cmp_to_key(compare))
    return order, less, rows


@evaluator("Sort")
def sort(ctx: Any, operands: list[np.ndarray]) -> Any:
    order, _, rows = sort_order(ctx, operands)
    d = sort_dimension(ctx.attr("dimension"), operands[0].ndim)
    out = []
    for x, row in zip(operands, rows):
        moved_shape = np.moveaxis(x, d, -1).shape
        out.append(np.moveaxis(np.take_along_axis(row, order, axis=1).reshape(moved_shape), -1, d))
    return out[0] if len(out) == 1 else tuple(out)


@implementation_defined("Sort")
def sort_outcomes(ctx: Any, operands: list[np.ndarray]) -> dict[str, Allowed]:
    """``unstable_ties``: an unstable sort may order the elements the comparator finds equal in any
    way: the sorted positions holding such runs, where each run must hold the reference's values.
    ``not_a_strict_weak_order``: the whole result, when the comparator is not one on these operands."""
    d = sort_dimension(ctx.attr("dimension"), operands[0].ndim)
    order, less, rows = sort_order(ctx, operands)
    n = order.shape[1]
    run = np.full(order.shape, -1)  # per sorted position: the index of the first position of its run of ties
    if not ctx.attr("is_stable") and n > 1:
        for r in range(order.shape[0]):
            a, b = order[r, :-1], order[r, 1:]
            equal = ~less[r, a, b] & ~less[r, b, a]
            for j in range(n - 1):
                if equal[j]:
                    run[r, j] = run[r, j] if run[r, j] >= 0 else j
                    run[r, j + 1] = run[r, j]
    moved_shape = np.moveaxis(operands[0], d, -1).shape

    def same_values_per_run(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        act, exp = (np.moveaxis(x, d, -1).reshape(order.shape) for x in (actual, expected))
        ok = np.zeros(order.shape, bool)
        for r, start in zip(*np.nonzero(run >= 0)):
            if run[r, start] != start:
                continue
            members = run[r] == start
            same = sorted(x.tobytes() for x in act[r, members]) == sorted(x.tobytes() for x in exp[r, members])
            ok[r, members] = same
        return np.moveaxis(ok.reshape(moved_shape), -1, d)

    ties = np.moveaxis((run >= 0).reshape(moved_shape), -1, d)
    bad_order = not _strict_weak_order(less)
    return {"unstable_ties": Allowed(ties, {"any_order_of_ties": same_values_per_run}),
            "not_a_strict_weak_order": Allowed(np.full(ties.shape, bad_order), {"unnarrowed": any_value})}


def _strict_weak_order(less: np.ndarray) -> bool:
    """Whether ``less[r]`` (the comparator on every pair of a row) is a strict weak order on each row:
    irreflexive, and incomparability transitive (so: asymmetric and transitive)."""
    for lt in less:
        incomparable = ~lt & ~lt.T
        if lt.diagonal().any() or (lt & lt.T).any():
            return False
        if ((lt.astype(np.int64) @ lt.astype(np.int64) > 0) & ~lt).any():
            return False
        if ((incomparable.astype(np.int64) @ incomparable.astype(np.int64) > 0) & ~incomparable).any():
            return False
    return True


def total_order_key(x: np.ndarray) -> np.ndarray:
    """Integers ordered as XLA's total order orders ``x``: -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN
    for floats (the sign-magnitude bit pattern made two's complement), the values themselves otherwise."""
    if x.dtype.kind not in "fV" and not etypes.is_float(etypes.dtype_to_etype(x.dtype)):
        return x.astype(np.int64) if x.dtype.kind != "u" else x.astype(np.uint64)
    signed = np.dtype(f"i{x.dtype.itemsize}")
    bits = x.view(signed).astype(np.int64)
    return np.where(bits < 0, -(bits & np.iinfo(signed).max) - 1, bits)


@evaluator("TopK")
def top_k(ctx: Any, operand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = ctx.attr("k")
    key = total_order_key(operand)
    if key.dtype == np.uint64:  # unsigned: rank by value through a signed view that keeps the order
        key = (key.astype(np.int64) if operand.dtype.itemsize < 8 else
               (key ^ np.uint64(1 << 63)).view(np.int64))
    if ctx.attr("largest"):
        key = -1 - key  # reverses the order and stays in range
    index = np.argsort(key, axis=-1, kind="stable")[..., :k]  # equal keys: the lower index first
    return np.take_along_axis(operand, index, axis=-1), index.astype(np.int32)
