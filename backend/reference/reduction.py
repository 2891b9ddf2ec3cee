"""Reference evaluators of Reduce, ReduceWindow and SelectAndScatter.

They follow the documents' pseudo-code: each result element starts at its init value and the
computation folds in the elements one at a time, in row-major order (of the reduced dimensions,
of the window). The fold is vectorised across result elements: the sub-computation runs through
``ctx.call`` on whole arrays, one reduced element (one window tap) per call. A float or complex
``Add`` reducer accumulates in float64 / complex128 and rounds once.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import etypes
from backend.hlo.graph import XlaComputation
from backend.hlo.reducers import binary_reducer_name
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed
from backend.reference.elementwise import widen
from backend.rules.reduction import Window, window_of

Combine = Callable[[list[np.ndarray], list[np.ndarray]], list[np.ndarray]]


def _wide_dtype(dtype: np.dtype) -> np.dtype | None:
    et = etypes.dtype_to_etype(dtype)
    if etypes.is_complex(et):
        return np.dtype(np.complex128)
    return np.dtype(np.float64) if etypes.is_float(et) else None


def _combiner(ctx: EvaluatorContext, comp: XlaComputation, dtypes: Sequence[np.dtype]) -> tuple[Combine,
              list[np.dtype]]:
    """The fold step ``accs, xs -> accs`` and the dtypes the accumulators are kept in."""
    wide = _wide_dtype(dtypes[0]) if len(dtypes) == 1 else None
    if wide is not None and binary_reducer_name(comp) == "add":
        return (lambda accs, xs: [np.add(accs[0], xs[0].astype(wide))]), [wide]

    def call(accs: list[np.ndarray], xs: list[np.ndarray]) -> list[np.ndarray]:
        out = ctx.call(comp, [*accs, *xs])
        outs = [out] if len(accs) == 1 else list(out)
        return [np.broadcast_to(np.asarray(o).astype(a.dtype), a.shape) for o, a in zip(outs, accs)]
    return call, list(dtypes)


def _finish(accs: list[np.ndarray], dtypes: Sequence[np.dtype]) -> Any:
    with np.errstate(all="ignore"):
        out = [np.asarray(a).astype(t) for a, t in zip(accs, dtypes)]
    return out[0] if len(out) == 1 else tuple(out)


def _initial(inits: Sequence[np.ndarray], acc_dtypes: Sequence[np.dtype], dims: Sequence[int]) -> list[np.ndarray]:
    return [np.full(tuple(dims), np.asarray(v).astype(t), dtype=t) for v, t in zip(inits, acc_dtypes)]


@evaluator("Reduce")
def reduce(ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray]) -> Any:
    reduced = sorted(ctx.attr("dimensions_to_reduce"))
    if not reduced:  # XLA: reducing no dimension returns the operands, the init value never combined
        return operands[0].copy() if len(operands) == 1 else tuple(x.copy() for x in operands)
    kept = [d for d in range(operands[0].ndim) if d not in reduced]
    kept_dims = [operands[0].shape[d] for d in kept]
    dtypes = [x.dtype for x in operands]
    combine, acc_dtypes = _combiner(ctx, ctx.attr("computation"), dtypes)
    count = int(np.prod([operands[0].shape[d] for d in reduced], dtype=np.int64))
    flat = [np.transpose(x, kept + reduced).reshape(tuple(kept_dims) + (count,)) for x in operands]
    accs = _initial(init_values, acc_dtypes, kept_dims)
    with np.errstate(all="ignore"):
        for k in range(flat[0].shape[-1]):
            accs = combine(accs, [x[..., k] for x in flat])
    return _finish(accs, dtypes)


def window_taps(window: Window, column_major: bool = False) -> Iterator[tuple[int, ...]]:
    """Window offsets in row-major order (column-major: the first dimension varying fastest)."""
    if column_major:
        return (t[::-1] for t in itertools.product(*(range(w) for w in reversed(window.dimensions))))
    return itertools.product(*(range(w) for w in window.dimensions))


def tap_positions(window: Window, base: Sequence[int], out_dims: Sequence[int],
                  tap: Sequence[int]) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """For one window offset: where (over the windows) it lands on a real operand element (not on
    padding or a base-dilation hole), and the operand index it lands on (clipped where it does not)."""
    valid = np.ones(tuple(out_dims), dtype=bool)
    index = []
    rank = len(base)
    for d, (size, o, t) in enumerate(zip(base, out_dims, tap)):
        bd = window.base_dilations[d]
        pos = np.arange(o) * window.strides[d] + t * window.window_dilations[d] - window.padding[d][0]
        ok = (pos >= 0) & (pos <= (size - 1) * bd) & (pos % bd == 0)
        shape = [1] * rank
        shape[d] = o
        valid &= ok.reshape(shape)
        index.append(np.clip(pos // bd, 0, max(size - 1, 0)).reshape(shape))
    return valid, tuple(np.broadcast_arrays(*index)) if index else ()


@evaluator("ReduceWindow")
def reduce_window(ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray]) -> Any:
    return _fold_windows(ctx, operands, init_values)[1]


def _fold_windows(ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray],
                  pad_with_init: bool = False) -> tuple[np.ndarray, Any]:
    """Every window folded from the init value: the windows that cover a padding cell or a base-dilation hole,
    and the result. Padding cells and holes are skipped, or (``pad_with_init``) hold the init value and are
    combined like elements (pad with the init values, then reduce every window)."""
    base = operands[0].shape
    window = window_of(ctx.attrs, len(base))
    out_dims = tuple(window.output_dims(base))
    dtypes = [x.dtype for x in operands]
    combine, acc_dtypes = _combiner(ctx, ctx.attr("computation"), dtypes)
    accs = _initial(init_values, acc_dtypes, out_dims)
    touched = np.zeros(out_dims, bool)
    with np.errstate(all="ignore"):
        for tap in window_taps(window):
            valid, index = tap_positions(window, base, out_dims, tap)
            valid = np.broadcast_to(valid, out_dims)
            touched |= ~valid
            if pad_with_init:
                accs = combine(accs, [np.full(out_dims, np.asarray(v).astype(x.dtype)) if x.size == 0
                                      else np.where(valid, x[index], np.asarray(v).astype(x.dtype))
                                      for x, v in zip(operands, init_values)])
            elif operands[0].size and valid.any():
                new = combine(accs, [x[index] for x in operands])
                accs = [np.where(valid, n, a) for n, a in zip(new, accs)]
    return touched, _finish(accs, dtypes)


def _any_order(ev: Callable[..., Any], ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray],
               combined: int) -> dict[str, Allowed]:
    """``reduction_order`` of a real float Add or Mul reduction of one operand, ``combined`` values per
    result at most (the init value included): any order of combination, within the classical error bound
    of recursive summation |computed - exact| <= (n - 1) u sum |x_i| (Add) or gamma_(n-1) |exact| (Mul),
    u the type's unit roundoff (Higham, Accuracy and Stability of Numerical Algorithms, 2002, 3.1, 4.2)."""
    reducer = binary_reducer_name(ctx.attr("computation"))
    if len(operands) != 1 or reducer not in ("add", "mul") or not etypes.is_float(
            etypes.dtype_to_etype(operands[0].dtype)) or combined < 3:
        return {}
    with np.errstate(all="ignore"):
        exact = np.asarray(ev(ctx, operands, init_values)).astype(np.float64)
        magnitude = np.asarray(ev(ctx, [np.abs(operands[0])], [np.abs(init_values[0])])).astype(np.float64) \
            if reducer == "add" else None
    return {"reduction_order": reassociation_allowed(reducer, operands[0].dtype, combined, exact, magnitude)}


def reassociation_allowed(reducer: str, dtype: np.dtype, combined: int | np.ndarray, exact: np.ndarray,
                          magnitude: np.ndarray | None) -> Allowed:
    """``any_order`` of a real float Add or Mul of ``combined`` values per element (a number, or an array
    broadcasting with ``exact``): a result within the classical bound of recursive summation, (n - 1) u sum |x_i|
    (Add; ``magnitude`` is sum |x_i|) or gamma_(n-1) |exact| (Mul), of ``exact`` (float64), u the type's unit
    roundoff (Higham 2002, 3.1 and 4.2)."""
    u = float(ml_dtypes.finfo(dtype).eps) / 2
    steps = np.asarray(combined, np.float64) - 1
    with np.errstate(all="ignore"):
        if reducer == "add":
            bound = steps * u * magnitude * (1 + 4 * u)
        else:
            bound = steps * u / np.maximum(1 - steps * u, u) * np.abs(exact)
    finite = np.isfinite(exact) & np.isfinite(bound)

    def within_bound(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.abs(np.asarray(actual).astype(np.float64) - exact) <= bound
    return Allowed(finite, {"any_order": within_bound})


@implementation_defined("ReduceWindow")
def reduce_window_outcomes(ctx: EvaluatorContext, operands: list[np.ndarray],
                           init_values: list[np.ndarray]) -> dict[str, Allowed]:
    """``reduction_order``: see ``_any_order`` (at most the window's size plus the init value combined).
    ``non_identity_init``: windows over padding or base-dilation holes may combine the init value once more
    per such cell (the documents' padding with init values read literally, the StableHLO spec)."""
    window = window_of(ctx.attrs, operands[0].ndim)
    table = _any_order(reduce_window, ctx, operands, init_values, int(np.prod(window.dimensions)) + 1)
    touched, padded = _fold_windows(ctx, operands, init_values, pad_with_init=True)
    return {**table, "non_identity_init": Allowed(touched, {"padded_with_init": padded})}


@implementation_defined("Reduce")
def reduce_outcomes(ctx: EvaluatorContext, operands: list[np.ndarray], init_values: list[np.ndarray]) -> dict[str,
                    Allowed]:
    """``reduction_order``: see ``_any_order``. ``non_identity_init``: an Add reduction with a non-zero
    init value: the init value may be combined k times, 0 <= k <= max(1, n), with the sum of the n
    reduced elements (the reference: once; none when no dimension is reduced)."""
    comp = ctx.attr("computation")
    et = etypes.dtype_to_etype(operands[0].dtype)
    n_reduced = int(np.prod([operands[0].shape[d] for d in ctx.attr("dimensions_to_reduce")], dtype=np.int64))
    table = _any_order(reduce, ctx, operands, init_values, n_reduced + 1)
    if len(operands) != 1 or binary_reducer_name(comp) != "add" or not (etypes.is_int(et) or etypes.is_float(et)):
        return table
    init = widen(np.asarray(init_values[0]))
    if init == 0:
        return table
    reduced = ctx.attr("dimensions_to_reduce")
    n = int(np.prod([operands[0].shape[d] for d in reduced], dtype=np.int64))
    with np.errstate(all="ignore"):
        total = widen(np.asarray(reduce(ctx, operands, [np.zeros_like(init_values[0])])))
    limit = max(1, n)
    floating = etypes.is_float(et)

    def k_times(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            d = widen(np.asarray(actual)) - total
            if floating:
                k = np.round(d / init)
                close = np.abs(d - k * init) <= 1e-3 * np.maximum(np.abs(widen(np.asarray(actual))), np.abs(init))
                return close & (k >= 0) & (k <= limit)
            bits = 8 * operands[0].dtype.itemsize
            ks = np.arange(limit + 1, dtype=np.int64)
            wrapped = (total[..., None] + ks * np.int64(init)) & np.int64((1 << bits) - 1 if bits < 64 else -1)
            want = widen(np.asarray(actual)).astype(np.int64)[..., None] & np.int64((1 << bits) - 1 if bits < 64 else -1)
            return (wrapped == want).any(axis=-1)
    return {**table, "non_identity_init": Allowed(np.ones(np.shape(total), bool), {"k_times": k_times})}


def _selected(ctx: EvaluatorContext, operand: np.ndarray, window: Window, out_dims: Sequence[int],
              column_major: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per window: whether it holds a real element, and the flat operand index ``select`` picks
    (the first element, replaced by each later one that ``select(chosen, later)`` rejects)."""
    comp = ctx.attr("select")
    has = np.zeros(tuple(out_dims), dtype=bool)
    chosen = np.zeros(tuple(out_dims), dtype=operand.dtype)
    where = np.zeros(tuple(out_dims), dtype=np.int64)
    if operand.size == 0:
        return has, where
    with np.errstate(all="ignore"):
        for tap in window_taps(window, column_major):
            valid, index = tap_positions(window, operand.shape, out_dims, tap)
            current = operand[index]
            keep = np.asarray(ctx.call(comp, [chosen, current]), dtype=bool)
            take = valid & (~has | ~keep)
            chosen = np.where(take, current, chosen)
            where = np.where(take, np.ravel_multi_index(index, operand.shape), where)
            has |= valid
    return has, where


def _occurrence(targets: np.ndarray) -> np.ndarray:
    """For each entry, how many earlier entries share its value (the scatter round it belongs to)."""
    order = np.argsort(targets, kind="stable")
    ranks = np.empty(len(targets), dtype=np.int64)
    sorted_targets = targets[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_targets)) + 1] if len(targets) else np.zeros(0, np.int64)
    group_start = np.repeat(starts, np.diff(np.r_[starts, len(targets)]))
    ranks[order] = np.arange(len(targets)) - group_start
    return ranks


@evaluator("SelectAndScatter")
def select_and_scatter(ctx: EvaluatorContext, operand: np.ndarray, source: np.ndarray, init_value: np.ndarray,
                       column_major: bool = False) -> np.ndarray:
    window = window_of(ctx.attrs, operand.ndim)
    has, where = _selected(ctx, operand, window, source.shape, column_major)
    targets, values = where[has], source[has]
    combine, acc_dtypes = _combiner(ctx, ctx.attr("scatter"), [operand.dtype])
    out = _initial([init_value], acc_dtypes, (operand.size,))[0]
    ranks = _occurrence(targets)
    with np.errstate(all="ignore"):
        for r in range(int(ranks.max()) + 1 if len(ranks) else 0):
            pick = ranks == r
            t = targets[pick]
            out[t] = combine([out[t]], [values[pick]])[0]
    return _finish([out.reshape(operand.shape)], [operand.dtype])


@implementation_defined("SelectAndScatter")
def select_and_scatter_outcomes(ctx: EvaluatorContext, operand: np.ndarray, source: np.ndarray,
                                init_value: np.ndarray) -> dict[str, Allowed]:
    """With padding, XLA's CPU backend visits a window's elements in column-major order, so of several
    equal candidates it may select another one: the tied candidates of padded windows are marked, and the
    other outcome is the selection in column-major order."""
    window = window_of(ctx.attrs, operand.ndim)
    mask = np.zeros(operand.size, dtype=bool)
    if operand.size and any(lo or hi for lo, hi in window.padding):
        has, where = _selected(ctx, operand, window, source.shape)
        chosen = operand.reshape(-1)[where]
        for tap in window_taps(window):
            valid, index = tap_positions(window, operand.shape, source.shape, tap)
            flat = np.ravel_multi_index(index, operand.shape)
            tie = valid & has & (operand[index] == chosen) & (flat != where)
            mask[flat[tie]] = True
            mask[where[tie]] = True
    other = select_and_scatter(ctx, operand, source, init_value, column_major=True)
    return {"tie_order_with_padding": Allowed(mask.reshape(operand.shape), {"column_major": other})}
