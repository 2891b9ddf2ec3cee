"""Reference evaluators of the higher-order ops: Map, Scan, Sort, TopK, ApproxTopK and ApproxTopKFallback.

They follow the documents literally: Map calls its computation once per element, Scan once per
step, Sort orders each row with Python's (stable, merge-based) sort driven by the comparator, and
TopK ranks by the total order with the lower index first among equal elements, and ApproxTopK and
its fallback are the exact top k: Sort's stable order, sliced.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from backend.errors import UnsupportedError
from backend.hlo import etypes
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, Holds, none_of
from backend.rules.higher_order import sort_dimension


@evaluator("Map")
def map_(ctx: EvaluatorContext, operands: list[np.ndarray], static_operands: list[np.ndarray]) -> np.ndarray:
    comp = ctx.attr("computation")
    out = np.empty(ctx.shape.dimensions(), dtype=etypes.etype_to_dtype(ctx.shape.element_type()))
    for index in np.ndindex(*out.shape):
        out[index] = ctx.call(comp, [np.asarray(x[index]) for x in operands] + list(static_operands))
    return out


@evaluator("Scan")
def scan(ctx: EvaluatorContext, inputs: list[np.ndarray], inits: list[np.ndarray]) -> tuple[np.ndarray, ...]:
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


def _scan_folds(comp: Any, m: int, k: int, n: int) -> list[tuple[str, bool]] | None:
    """Per input i, ``(reducer, inclusive)`` when ``to_apply`` is a running Add or Mul: m = n = k, carry i
    becomes ``op(x_i, c_i)`` and output i is that new carry (inclusive) or ``c_i`` (exclusive); else ``None``."""
    root, params = comp.root_instruction, comp.parameters
    if not (m == n == k) or root.opcode != "Tuple" or len(root.operands) != 2 * m or len(params) != 2 * m:
        return None
    folds = []
    for i in range(m):
        new = comp.instruction(root.operands[m + i])
        reducer = {"Add": "add", "Mul": "mul"}.get(new.opcode)
        if reducer is None or sorted(new.operands) != sorted((params[i].id, params[m + i].id)):
            return None
        out = root.operands[i]
        if out not in (new.id, params[m + i].id):
            return None
        folds.append((reducer, out == new.id))
    return folds


@implementation_defined("Scan")
def scan_outcomes(ctx: EvaluatorContext, inputs: list[np.ndarray], inits: list[np.ndarray]) -> dict[str, Allowed]:
    """``reassociation``: with is_associative true and ``to_apply`` a running Add or Mul of a real float type
    (see :func:`_scan_folds`), every output and final carry of such a fold, any association of the values it
    combines (the init and the inputs visited so far) within Higham's bound of recursive summation
    (``reassociation_allowed``, shared with Reduce and AllReduce)."""
    from backend.reference.reduction import reassociation_allowed

    k, d = len(inits), ctx.attr("scan_dimension")
    n = len(ctx.shape.tuple_shapes()) - k
    folds = _scan_folds(ctx.attr("to_apply"), len(inputs), k, n)
    if ctx.attr("is_associative") is not True or folds is None:
        return {}
    size = inputs[0].shape[d]
    masks: list[np.ndarray] = []
    outcomes: list[Any] = []
    for part in ("outputs", "carries"):
        for i, (reducer, inclusive) in enumerate(folds):
            x = inputs[i]
            shape = x.shape if part == "outputs" else np.shape(inits[i])
            if not etypes.is_float(etypes.dtype_to_etype(x.dtype)):
                masks.append(np.zeros(shape, bool))
                outcomes.append(none_of)
                continue
            with np.errstate(all="ignore"):
                wide = np.moveaxis(x.astype(np.float64), d, 0)
                init = np.asarray(inits[i]).astype(np.float64)
                if ctx.attr("is_reverse"):
                    wide = wide[::-1]
                fold = np.cumsum if reducer == "add" else np.cumprod
                exact = np.concatenate([init[None], init + fold(wide, axis=0) if reducer == "add"
                                        else init * fold(wide, axis=0)])  # [size + 1, ...]: after 0..size steps
                magnitude = np.concatenate([np.abs(init)[None], np.abs(init) + np.cumsum(np.abs(wide), axis=0)])
            combined = np.arange(1, size + 2).reshape((-1,) + (1,) * init.ndim)  # the values in each fold
            if part == "carries":
                exact, magnitude, combined = exact[-1], magnitude[-1], combined[-1]
            else:
                taken = slice(1, None) if inclusive else slice(0, size)  # after the step, or before it
                exact, magnitude, combined = exact[taken], magnitude[taken], combined[taken]
                if ctx.attr("is_reverse"):
                    exact, magnitude, combined = exact[::-1], magnitude[::-1], combined[::-1]
                exact, magnitude = np.moveaxis(exact, 0, d), np.moveaxis(magnitude, 0, d)
                combined = np.moveaxis(np.broadcast_to(combined, (size,) + init.shape), 0, d)
            allowed = reassociation_allowed(reducer, x.dtype, combined, exact,
                                            magnitude if reducer == "add" else None)
            masks.append(np.broadcast_to(allowed.mask & (np.asarray(combined) >= 3), shape))
            outcomes.append(allowed.outcomes["any_order"])
    return {"reassociation": Allowed(tuple(masks), {"any_association": tuple(outcomes)})}


def _less_matrix(ctx: EvaluatorContext, rows: list[np.ndarray]) -> np.ndarray:
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


def as_rows(operands: list[np.ndarray], d: int) -> list[np.ndarray]:
    """The operands with dimension ``d`` moved last and the others flattened: [rows, n]."""
    moved = [np.moveaxis(x, d, -1) for x in operands]
    n = moved[0].shape[-1]
    return [x.reshape(int(np.prod(x.shape[:-1], dtype=np.int64)), n) for x in moved]


def sort_order(ctx: EvaluatorContext, operands: list[np.ndarray], dimension: int | None = None
               ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """The permutation sorting each row (``order[r, q]`` is the input position of sorted position q),
    the comparator matrix, and the operands moved to [rows, n]; along ``dimension`` (default: the
    op's ``dimension`` attribute, as Sort's)."""
    d = sort_dimension(ctx.attr("dimension"), operands[0].ndim) if dimension is None else dimension
    rows = as_rows(operands, d)
    n = rows[0].shape[-1]
    less = _less_matrix(ctx, rows) if rows[0].size else np.zeros((rows[0].shape[0], n, n), bool)
    order = np.empty(rows[0].shape, dtype=np.int64)
    for r in range(order.shape[0]):
        lt = less[r]

        def compare(i: int, j: int, lt: np.ndarray = lt) -> int:
            return -1 if lt[i, j] else 1 if lt[j, i] else 0
        order[r] = sorted(range(n), key=functools.cmp_to_key(compare))
    return order, less, rows


@evaluator("Sort")
def sort(ctx: EvaluatorContext, operands: list[np.ndarray]) -> Any:
    order, _, rows = sort_order(ctx, operands)
    d = sort_dimension(ctx.attr("dimension"), operands[0].ndim)
    out = []
    for x, row in zip(operands, rows):
        moved_shape = np.moveaxis(x, d, -1).shape
        out.append(np.moveaxis(np.take_along_axis(row, order, axis=1).reshape(moved_shape), -1, d))
    return out[0] if len(out) == 1 else tuple(out)


def _row_tuples(rows: list[np.ndarray], r: int, positions: Any = slice(None)) -> list[bytes]:
    """The N-tuples (one element of every operand, bit for bit) at ``positions`` of row ``r``, sorted:
    two rows hold the same tuples exactly when one is the other permuted, every operand alike."""
    return sorted(b"".join(x[r, p].tobytes() for x in rows) for p in np.arange(rows[0].shape[1])[positions])


@implementation_defined("Sort")
def sort_outcomes(ctx: EvaluatorContext, operands: list[np.ndarray]) -> dict[str, Allowed]:
    """``unstable_ties``: an unstable sort may order the elements the comparator finds equal in any
    way: the sorted positions holding such runs, where each run must hold the reference's N-tuples
    (one permutation of the run for every operand together).
    ``not_a_strict_weak_order``: the rows on which the comparator is not one; there the result must be
    the row's N-tuples permuted (every operand by one and the same permutation)."""
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
    expected = [np.take_along_axis(row, order, axis=1) for row in rows]

    def spread(per_row: np.ndarray) -> tuple[np.ndarray, ...]:
        """A [rows, n] mask back over the operands' shape, the same for every output."""
        mask = np.moveaxis(per_row.reshape(moved_shape), -1, d)
        return tuple(mask for _ in operands)

    def same_tuples_per_run(outputs: Any) -> tuple[np.ndarray, ...]:
        act = as_rows([np.asarray(y) for y in (outputs if isinstance(outputs, (list, tuple)) else [outputs])], d)
        ok = np.zeros(order.shape, bool)
        for r, start in zip(*np.nonzero(run >= 0)):
            if run[r, start] == start:
                members = run[r] == start
                ok[r, members] = _row_tuples(act, r, members) == _row_tuples(expected, r, members)
        return spread(ok)

    def permuted_rows(outputs: Any) -> tuple[np.ndarray, ...]:
        act = as_rows([np.asarray(y) for y in (outputs if isinstance(outputs, (list, tuple)) else [outputs])], d)
        ok = np.array([_row_tuples(act, r) == _row_tuples(rows, r) for r in range(order.shape[0])], bool)
        return spread(np.broadcast_to(ok[:, None], order.shape))

    bad_rows = np.broadcast_to(~_strict_weak_order_rows(less)[:, None], order.shape)
    return {"unstable_ties": Allowed(spread(run >= 0), {"any_order_of_ties": Holds(same_tuples_per_run)}),
            "not_a_strict_weak_order": Allowed(spread(bad_rows), {"permuted_rows": Holds(permuted_rows)})}


def _strict_weak_order(less: np.ndarray) -> bool:
    """Whether ``less[r]`` (the comparator on every pair of a row) is a strict weak order on each row."""
    return bool(_strict_weak_order_rows(less).all())


def _strict_weak_order_rows(less: np.ndarray) -> np.ndarray:
    """Per row r, whether ``less[r]`` (the comparator on every pair of the row) is a strict weak order:
    irreflexive, and incomparability transitive (so: asymmetric and transitive)."""
    ok = np.ones(less.shape[0], bool)
    for r, lt in enumerate(less):
        incomparable = ~lt & ~lt.T
        lt64, inc64 = lt.astype(np.int64), incomparable.astype(np.int64)
        ok[r] = not (lt.diagonal().any() or (lt & lt.T).any() or ((lt64 @ lt64 > 0) & ~lt).any()
                     or ((inc64 @ inc64 > 0) & ~incomparable).any())
    return ok


def total_order_key(x: np.ndarray) -> np.ndarray:
    """Integers ordered as XLA's total order orders ``x``: -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN
    for floats (the sign-magnitude bit pattern made two's complement), the values themselves otherwise."""
    if x.dtype.kind not in "fV" and not etypes.is_float(etypes.dtype_to_etype(x.dtype)):
        return x.astype(np.int64) if x.dtype.kind != "u" else x.astype(np.uint64)
    signed = np.dtype(f"i{x.dtype.itemsize}")
    bits = x.view(signed).astype(np.int64)
    return np.where(bits < 0, -(bits & np.iinfo(signed).max) - 1, bits)


@evaluator("TopK")
def top_k(ctx: EvaluatorContext, operand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = ctx.attr("k")
    key = total_order_key(operand)
    if key.dtype == np.uint64:  # unsigned: rank by value through a signed view that keeps the order
        key = (key.astype(np.int64) if operand.dtype.itemsize < 8 else
               (key ^ np.uint64(1 << 63)).view(np.int64))
    if ctx.attr("largest"):
        key = -1 - key  # reverses the order and stays in range
    index = np.argsort(key, axis=-1, kind="stable")[..., :k]  # equal keys: the lower index first
    return np.take_along_axis(operand, index, axis=-1), index.astype(np.int32)


#: where a row's NaNs go, besides XLA's total order (+NaN above every number, -NaN below): after every number in
#: the result's order, below every number, or above every number
_NAN_PLACES = ("last", "smallest", "largest")


def _top_k_row(row: np.ndarray, k: int, largest: bool, nan: str, zeros_equal: bool) -> tuple[np.ndarray, np.ndarray]:
    """The top k of a float row ordered with NaNs placed by ``nan`` (``total`` or one of ``_NAN_PLACES``) and +-0
    tied (``zeros_equal``: the lower index first) or -0 < +0; equal numbers in index order."""
    v = row.astype(np.float64)
    is_nan, negative = np.isnan(v), np.signbit(v)
    value = np.where(is_nan, 0.0, v)
    zero_rank = np.where((v == 0) & ~zeros_equal, np.where(negative, 0, 1), 0)
    above = {"total": ~negative, "largest": np.ones(v.shape, bool), "smallest": np.zeros(v.shape, bool)}
    if nan == "last":
        group = np.where(is_nan, 1, 0)
    else:
        on_top = above[nan] if largest else ~above[nan]  # the NaN comes before every number in the result
        group = np.where(is_nan, np.where(on_top, -1, 1), 0)
    sign = -1 if largest else 1
    order = np.lexsort((np.arange(v.size), sign * zero_rank, sign * value, group))[:k]
    return row[order], order.astype(np.int32)


def _top_k_candidates(operand: np.ndarray, k: int, largest: bool, places: tuple[tuple[str, bool], ...]) -> Holds:
    """Rows whose (values, indices) equal the top k under one of ``places`` ((NaN place, zeros equal) pairs)."""
    def check(outputs: Any) -> tuple[np.ndarray, np.ndarray]:
        values, indices = (np.asarray(o) for o in outputs)
        rows = operand.reshape(-1, operand.shape[-1])
        ok = np.zeros(rows.shape[0], bool)
        for r, row in enumerate(rows):
            got_v, got_i = values.reshape(-1, k)[r], indices.reshape(-1, k)[r]
            for nan, zeros_equal in places:
                want_v, want_i = _top_k_row(row, k, largest, nan, zeros_equal)
                if np.array_equal(got_i, want_i) and _same_floats(got_v, want_v):
                    ok[r] = True
                    break
        mask = np.broadcast_to(ok.reshape(operand.shape[:-1] + (1,)), operand.shape[:-1] + (k,))
        return mask, mask
    return Holds(check)


def _same_floats(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit as values: NaN matches NaN, a zero matches a zero of its sign."""
    x, y = a.astype(np.float64), b.astype(np.float64)
    return bool(np.all(((x == y) & (np.signbit(x) == np.signbit(y))) | (np.isnan(x) & np.isnan(y))))


@implementation_defined("TopK")
def top_k_outcomes(ctx: EvaluatorContext, operand: np.ndarray) -> dict[str, Allowed]:
    """Float rows with a NaN or with zeros of both signs: +-0 tied (IEEE equality, then the seed's index rule), or
    NaNs all after, below or above the numbers (IEEE comparisons leave NaN unordered), besides XLA's total order."""
    k, largest = ctx.attr("k"), ctx.attr("largest")
    shape = operand.shape[:-1] + (k,)
    if not etypes.is_float(etypes.dtype_to_etype(operand.dtype)):
        none = np.zeros(shape, bool)
        return {"nan_and_signed_zero_order": Allowed((none, none), {"zeros_equal": none_of, "nan_unordered": none_of})}
    with np.errstate(invalid="ignore"):
        v = operand.astype(np.float64)
    zeros = ((v == 0) & np.signbit(v)).any(axis=-1) & ((v == 0) & ~np.signbit(v)).any(axis=-1)
    rows = np.broadcast_to((zeros | np.isnan(v).any(axis=-1))[..., None], shape)
    return {"nan_and_signed_zero_order": Allowed((rows, rows), {
        "zeros_equal": _top_k_candidates(operand, k, largest, (("total", True),)),
        "nan_unordered": _top_k_candidates(operand, k, largest, tuple(
            (nan, equal) for nan in _NAN_PLACES for equal in (False, True)))})}


# --- ApproxTopK ------------------------------------------------------------------------------------

def _approx_top_k_parts(ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray]
                        ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, list[np.ndarray], int]:
    """(result, order, less, rows, d): the exact result (the stable sort along reduction_dim, sliced to
    the result size), the sort's permutation per row, and the comparator on every pair of a row
    extended by the init values (position n) over [rows, n + 1]."""
    d = ctx.attr("reduction_dim")
    size = ctx.shape.tuple_shapes()[0].dimensions()[d]
    extended = [np.concatenate([x, np.broadcast_to(np.asarray(v, x.dtype), x.shape[:d] + (1,) + x.shape[d + 1:])],
                               axis=d) for x, v in zip(operands, init_values)]
    _, less, rows = sort_order(ctx, extended, d)
    order, _, _ = sort_order(ctx, list(operands), d)
    result = []
    for x in operands:
        picked = np.take_along_axis(np.moveaxis(x, d, -1), order[:, :size].reshape(
            np.moveaxis(x, d, -1).shape[:-1] + (size,)), axis=-1)
        result.append(np.moveaxis(picked, -1, d))
    return result, order, less, rows, d


@evaluator("ApproxTopK")
def approx_top_k(ctx: EvaluatorContext, operands: list[np.ndarray],
                 init_values: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    return tuple(_approx_top_k_parts(ctx, operands, init_values)[0])


@evaluator("ApproxTopKFallback")
def approx_top_k_fallback(ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray]
                          ) -> tuple[np.ndarray, ...]:
    return tuple(_approx_top_k_parts(ctx, operands, init_values)[0])


def _slot_positions(rows: list[np.ndarray], outs: list[np.ndarray], r: int, with_init: bool) -> list[int] | None:
    """Row ``r``'s slots as positions of the extended row (n: the init values), one position per slot
    among the positions holding the same N-tuple, bit for bit; ``None`` when a slot holds a tuple found
    nowhere, or more slots hold a tuple than positions do (init values: any number, if ``with_init``)."""
    n = rows[0].shape[1] - 1
    first: dict[tuple[bytes, ...], int] = {}
    count: dict[tuple[bytes, ...], int] = {}
    for p in range(n):
        key = tuple(x[r, p].tobytes() for x in rows)
        first.setdefault(key, p)
        count[key] = count.get(key, 0) + 1
    init_key = tuple(x[r, n].tobytes() for x in rows)
    positions, used = [], {}
    for j in range(outs[0].shape[1]):
        key = tuple(y[r, j].tobytes() for y in outs)
        used[key] = used.get(key, 0) + 1
        if key in first and used[key] <= count[key]:
            positions.append(first[key])
        elif with_init and key == init_key:
            positions.append(n)
        else:
            return None
    return positions


def _row_verdicts(outputs: Any, rows: list[np.ndarray], d: int, judge: Callable[[int, list[int]], bool],
                  with_init: bool) -> tuple[np.ndarray, ...]:
    """Per output, the verdict of each row (spread over reduction_dim): ``judge(r, positions)``."""
    outs = [np.asarray(y) for y in outputs]
    flat = as_rows(outs, d)
    ok = np.zeros(flat[0].shape[0], bool)
    for r in range(ok.size):
        positions = _slot_positions(rows, flat, r, with_init)
        ok[r] = positions is not None and judge(r, positions)
    moved_shape = np.moveaxis(outs[0], d, -1).shape
    mask = np.moveaxis(np.broadcast_to(ok.reshape(moved_shape[:-1] + (1,)), moved_shape), -1, d)
    return tuple(mask for _ in outs)


@implementation_defined("ApproxTopK")
def approx_top_k_outcomes(ctx: EvaluatorContext, operands: list[np.ndarray],
                          init_values: list[np.ndarray]) -> dict[str, Allowed]:
    """``approximation``: slots are distinct positions of the row (or the init values), in the
    comparator's order with aggregate_to_topk, and the row's first element is among them."""
    _, _, less, rows, d = _approx_top_k_parts(ctx, operands, init_values)
    n = rows[0].shape[1] - 1
    best = ~np.any(less[:, :n, :n], axis=1)  # [rows, n]: no element of the row comes before it
    ordered = ctx.attr("aggregate_to_topk")

    def judge(r: int, positions: list[int]) -> bool:
        if ordered and any(less[r, b, a] for a, b in zip(positions, positions[1:])):
            return False
        return any(p < n and best[r, p] for p in positions)
    return {"approximation": Allowed(np.True_, {"approximate": Holds(
        lambda outputs: _row_verdicts(outputs, rows, d, judge, with_init=True))})}


@implementation_defined("ApproxTopKFallback")
def approx_top_k_fallback_outcomes(ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray]
                                   ) -> dict[str, Allowed]:
    """``tie_order``: slots are distinct positions of the row, each equivalent under the comparator to
    the reference's element of the slot."""
    _, order, less, rows, d = _approx_top_k_parts(ctx, operands, init_values)

    def judge(r: int, positions: list[int]) -> bool:
        return all(not less[r, p, q] and not less[r, q, p]
                   for p, q in zip(positions, order[r]))
    return {"tie_order": Allowed(np.True_, {"any_order_of_ties": Holds(
        lambda outputs: _row_verdicts(outputs, rows, d, judge, with_init=False))})}
