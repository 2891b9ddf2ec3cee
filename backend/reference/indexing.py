"""Reference evaluators of Gather and Scatter: loops over output / update indices following the
documented index arithmetic (G, S, Sin, Oin / Win), independent of jax.

Gather clamps each start index so the slice stays inside the operand; Scatter skips an update
whose whole window would not fit in the operand. Scatter applies updates in row-major order of
the update index U (so with repeated indices the last update in that order is applied last).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from backend.hlo import etypes
from backend.hlo.attribute_types import GatherDimensionNumbers, ScatterDimensionNumbers
from backend.hlo.reducers import binary_reducer_name
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, none_of
from backend.reference.reduction import reassociation_allowed
from backend.rules.indexing import returns_second_parameter, scatter_window_operand_dims

DN = "dimension_numbers"


def _with_index_vector_dim(indices: np.ndarray, ivd: int) -> np.ndarray:
    """The indices with the implicit trailing dimension of size 1 made explicit."""
    return indices[..., None] if ivd == indices.ndim else indices


def _index_vector(indices: np.ndarray, ivd: int, g: Sequence[int]) -> list[int]:
    """S[i] = indices[Combine(G, i)]: G with i inserted at index_vector_dim."""
    pre, post = tuple(g[:ivd]), tuple(g[ivd:])
    return [int(indices[(*pre, i, *post)]) for i in range(indices.shape[ivd])]


def _full_start(rank: int, index_map: Sequence[int], vector: Sequence[int],
                batching: Sequence[tuple[int, int]], g: Sequence[int], ivd: int) -> list[int]:
    """Sin: the index vector scattered by index_map; a batching dimension starts at G's matching entry."""
    start = [0] * rank
    for k, od in enumerate(index_map):
        start[od] = vector[k]
    for od, idim in batching:
        start[od] = g[idim if idim < ivd else idim - 1]
    return start


def _gather_starts(ctx: EvaluatorContext, operand: np.ndarray, start_indices: np.ndarray) -> Iterator[tuple[tuple[int,
                   ...], list[int]]]:
    """(output index, operand index) pairs, start indices clamped so each slice is inside the operand."""
    dn: GatherDimensionNumbers = ctx.attr(DN)
    sizes = ctx.attr("slice_sizes")
    indices = _with_index_vector_dim(start_indices, dn.index_vector_dim)
    out_dims = ctx.shape.dimensions()
    batch_dims = [d for d in range(len(out_dims)) if d not in dn.offset_dims]
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    offset_operand_dims = [d for d in range(operand.ndim) if d not in dropped]
    batching = list(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    for out_index in np.ndindex(*out_dims):
        g = [out_index[d] for d in batch_dims]
        vector = _index_vector(indices, dn.index_vector_dim, g)
        start = _full_start(operand.ndim, dn.start_index_map, vector, batching, g, dn.index_vector_dim)
        for od in dn.start_index_map:
            start[od] = min(max(start[od], 0), operand.shape[od] - sizes[od])
        for k, od in enumerate(offset_operand_dims):
            start[od] += out_index[dn.offset_dims[k]]
        yield out_index, start


@evaluator("Gather")
def gather(ctx: EvaluatorContext, operand: np.ndarray, start_indices: np.ndarray) -> np.ndarray:
    out = np.empty(ctx.shape.dimensions(), operand.dtype)
    for out_index, operand_index in _gather_starts(ctx, operand, start_indices):
        out[out_index] = operand[tuple(operand_index)]
    return out


def _scatter_targets(dn: ScatterDimensionNumbers, operand_dims: tuple[int, ...], scatter_indices: np.ndarray,
                     update_dims: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(update index U, operand index I) in row-major order of U, for windows that fit in the operand."""
    rank = len(operand_dims)
    indices = _with_index_vector_dim(scatter_indices, dn.index_vector_dim)
    scatter_dims = [d for d in range(len(update_dims)) if d not in dn.update_window_dims]
    window_operand_dims = scatter_window_operand_dims(dn, rank)
    window = [1] * rank
    for ud, od in zip(dn.update_window_dims, window_operand_dims):
        window[od] = update_dims[ud]
    batching = list(zip(dn.input_batching_dims, dn.scatter_indices_batching_dims))
    for u in np.ndindex(*update_dims):
        g = [u[d] for d in scatter_dims]
        vector = _index_vector(indices, dn.index_vector_dim, g)
        start = _full_start(rank, dn.scatter_dims_to_operand_dims, vector, batching, g, dn.index_vector_dim)
        if any(not 0 <= s <= size - w for s, size, w in zip(start, operand_dims, window)):
            continue  # the window would leave the operand: the update is skipped
        for k, ud in enumerate(dn.update_window_dims):
            start[window_operand_dims[k]] += u[ud]
        yield u, tuple(start)


@evaluator("Scatter")
def scatter(ctx: EvaluatorContext, operands: list[np.ndarray], scatter_indices: np.ndarray,
            updates: list[np.ndarray]) -> Any:
    pairs = _scatter_targets(ctx.attr(DN), operands[0].shape, scatter_indices, updates[0].shape)
    return _apply_updates(ctx, operands, updates, pairs)


def _apply_updates(ctx: EvaluatorContext, operands: list[np.ndarray], updates: list[np.ndarray],
                   pairs: Iterable[tuple[tuple[int, ...], tuple[int, ...]]]) -> Any:
    """Apply the updates at the (update index, operand index) ``pairs``, in their order."""
    comp = ctx.attr("update_computation")
    replace = returns_second_parameter(comp)
    results = [np.array(o, copy=True) for o in operands]
    for u, target in pairs:
        news = [up[u] for up in updates]
        if not replace:
            out = ctx.call(comp, [np.asarray(r[target]) for r in results] + [np.asarray(v) for v in news])
            news = list(out) if isinstance(out, tuple) else [out]
        for r, v in zip(results, news):
            r[target] = v
    return results[0] if len(results) == 1 else tuple(results)


#: Combiners whose result does not depend on the order of the updates, for integer and boolean types
#: (and Max/Min for floats too): with them duplicate indices leave no choice.
_ORDER_FREE = {"add", "mul", "max", "min", "and", "or", "xor"}


def _order_independent(comp: Any, dtypes: Sequence[np.dtype]) -> bool:
    name = binary_reducer_name(comp)
    if len(dtypes) != 1 or name not in _ORDER_FREE:
        return False
    et = etypes.dtype_to_etype(dtypes[0])
    return name in ("max", "min") or not (etypes.is_float(et) or etypes.is_complex(et))


def _one_of(candidates: dict[tuple[int, ...], list[Any]]) -> Any:
    """A predicate: each listed element equals one of its candidate values."""
    def accepts(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        ok = np.zeros(actual.shape, bool)
        for target, values in candidates.items():
            a = actual[target]
            ok[target] = any(a == v or (a != a and v != v) for v in values)
        return ok
    return accepts


@implementation_defined("Scatter")
def scatter_outcomes(ctx: EvaluatorContext, operands: list[np.ndarray], scatter_indices: np.ndarray,
                     updates: list[np.ndarray]) -> dict[str, Allowed]:
    """Several updates reaching one element, with a combiner whose result depends on their order: the
    document leaves the order unspecified. Replace keeps any one of them; other combiners may apply
    them in reverse row-major order too. Integer Add (and the other associative, commutative
    combiners) gives one result whatever the order: no choice there."""
    comp = ctx.attr("update_computation")
    shape = operands[0].shape
    pairs = list(_scatter_targets(ctx.attr(DN), shape, scatter_indices, updates[0].shape))
    reaching: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for u, target in pairs:
        reaching.setdefault(target, []).append(u)
    mask = np.zeros(shape, bool)
    for target, us in reaching.items():
        mask[target] = len(us) > 1
    if not mask.any() or _order_independent(comp, [o.dtype for o in operands]):
        return {}
    if returns_second_parameter(comp):
        outcome: Any = tuple(_one_of({t: [up[u] for u in us] for t, us in reaching.items() if len(us) > 1})
                             for up in updates)
    else:
        reverse = _apply_updates(ctx, operands, updates, reversed(pairs))
        outcome = reverse if isinstance(reverse, tuple) else (reverse,)
    any_order = _any_order(comp, operands, updates, pairs)
    # any_order applies to float Add and Mul only; for the other combiners it is an outcome that cannot occur
    return {"duplicate_indices": Allowed(mask, {"other_order": outcome,
                                                "any_order": any_order or tuple(none_of for _ in operands)})}


def _any_order(comp: Any, operands: list[np.ndarray], updates: list[np.ndarray],
               pairs: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> tuple[Any] | None:
    """For one real float operand and an Add or Mul combiner: the updates reaching each element applied in
    any order and association (GPU atomics), within the reassociation bound Reduce uses; else None."""
    reducer = binary_reducer_name(comp)
    if len(operands) != 1 or reducer not in ("add", "mul") or not etypes.is_float(etypes.dtype_to_etype(operands[0].dtype)):
        return None
    exact = operands[0].astype(np.float64)
    magnitude = np.abs(exact)
    combined = np.ones(exact.shape)
    update = updates[0].astype(np.float64)
    for u, target in pairs:
        exact[target] = exact[target] + update[u] if reducer == "add" else exact[target] * update[u]
        magnitude[target] += abs(update[u])
        combined[target] += 1
    return (reassociation_allowed(reducer, operands[0].dtype, combined, exact, magnitude).outcomes["any_order"],)
