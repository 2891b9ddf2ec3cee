"""jax lowerings of the higher-order ops: Map (jnp.vectorize), Scan (lax.scan), Sort, TopK and ApproxTopK.

Sort: jax's sort primitive (``sort_p``) builds its own comparator (a lexicographic less-than over
``num_keys`` operands, with -0.0 = +0.0 and every NaN equal) and takes no other. A comparator that
is a total order on operand 0 (Lt/Gt on integers, LtTotalOrder/GtTotalOrder on floats) becomes
lax.sort on an integer key ordered as XLA's total order (negated for descending), sorted along
with the operands. Any other comparator is lowered by a decomposition that needs nothing but the comparator being a strict weak order, as the document
requires: the comparator is evaluated on every pair of elements of a row (``less[i, j]``), and
element i goes to position ``#{j : less[j, i]} + #{j < i : i and j are equivalent}`` — a stable
sort, which is also a valid result of an unstable one. It takes O(n^2) memory per row.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.hlo.graph import XlaComputation
from backend.jax_backend import LoweringContext, lowering
from backend.rules.higher_order import sort_dimension


@lowering("Map")
def map_(ctx: LoweringContext, operands: list[Any], static_operands: list[Any]) -> Any:
    comp = ctx.attr("computation")

    def element(*xs: Any) -> Any:
        return ctx.call(comp, [*xs, *static_operands])
    if operands[0].ndim == 0:
        return element(*operands)
    return jnp.vectorize(element)(*operands)


@lowering("Scan")
def scan(ctx: LoweringContext, inputs: list[Any], inits: list[Any]) -> tuple[Any, ...]:
    comp = ctx.attr("to_apply")
    d = ctx.attr("scan_dimension")
    k = len(inits)

    def step(carries: tuple[Any, ...], xs: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        values = tuple(ctx.call(comp, [*xs, *carries]))
        return values[len(values) - k:], values[:len(values) - k]
    carries, outputs = lax.scan(step, tuple(inits), tuple(jnp.moveaxis(x, d, 0) for x in inputs),
                                reverse=bool(ctx.attr("is_reverse")))
    return tuple(jnp.moveaxis(o, 0, d) for o in outputs) + tuple(carries)


def _key_order(comp: XlaComputation) -> str | None:
    """``"ascending"`` / ``"descending"`` when the comparator is a total order on operand 0 alone:
    ``p0 < p1`` / ``p0 > p1`` for integers and pred (any comparison type), LtTotalOrder / GtTotalOrder
    (or Compare with TOTALORDER) for floats; else ``None``."""
    root, params = comp.root_instruction, comp.parameters
    if tuple(root.operands) != (params[0].id, params[1].id):
        return None
    kind = params[0].shape.numpy_dtype().kind
    names = {"Lt": ("LT", False), "Gt": ("GT", False), "LtTotalOrder": ("LT", True), "GtTotalOrder": ("GT", True)}
    if root.opcode in names:
        direction, total = names[root.opcode]
    elif root.opcode == "Compare":
        direction = root.attrs["direction"].value
        compare_type = root.attrs.get("compare_type")
        total = compare_type is not None and compare_type.value == "TOTALORDER"
    else:
        return None
    if direction not in ("LT", "GT") or not (total or kind in "iub"):
        return None
    return "ascending" if direction == "LT" else "descending"


def _positions(ctx: LoweringContext, rows: list[Any]) -> Any:
    """For operands moved to [..., n]: the sorted position of every element (a strict weak order)."""
    comp = ctx.attr("comparator")
    args = [a for x in rows for a in (x[..., :, None], x[..., None, :])]
    less = jnp.vectorize(lambda *ps: ctx.call(comp, list(ps)))(*args)  # less[..., i, j] = comp(x_i, x_j)
    n = rows[0].shape[-1]
    equivalent = ~less & ~jnp.swapaxes(less, -1, -2)
    before = jnp.arange(n)[None, :] < jnp.arange(n)[:, None]  # [i, j]: j < i
    return jnp.sum(jnp.swapaxes(less, -1, -2), axis=-1) + jnp.sum(equivalent & before, axis=-1)


def sort_along(ctx: LoweringContext, operands: list[Any], d: int, is_stable: bool) -> tuple[Any, ...]:
    """The operands sorted together along dimension ``d`` by the op's ``comparator``."""
    order = _key_order(ctx.attr("comparator"))
    if order is not None:  # lax.sort on an integer key that orders as the comparator does
        key = _total_order_key(operands[0])
        key = ~key if order == "descending" else key
        return tuple(lax.sort((key, *operands), dimension=d, is_stable=is_stable, num_keys=1)[1:])
    rows = [jnp.moveaxis(x, d, -1) for x in operands]
    if rows[0].size == 0:
        return tuple(operands)
    ranks = jnp.argsort(_positions(ctx, rows), axis=-1)  # the inverse permutation: input index per position
    return tuple(jnp.moveaxis(jnp.take_along_axis(x, ranks, axis=-1), -1, d) for x in rows)


@lowering("Sort")
def sort(ctx: LoweringContext, operands: list[Any]) -> Any:
    out = sort_along(ctx, operands, sort_dimension(ctx.attr("dimension"), operands[0].ndim),
                     bool(ctx.attr("is_stable")))
    return out[0] if len(out) == 1 else out


def _result_size(ctx: LoweringContext) -> int:
    return ctx.shape.tuple_shapes()[0].dimensions()[ctx.attr("reduction_dim")]


@lowering("ApproxTopKFallback")
def approx_top_k_fallback(ctx: LoweringContext, operands: list[Any], init_values: list[Any]) -> tuple[Any, ...]:
    """XLA's fallback: sort along reduction_dim by the comparator, keep the leading positions."""
    d = ctx.attr("reduction_dim")
    return tuple(lax.slice_in_dim(x, 0, _result_size(ctx), axis=d) for x in sort_along(ctx, operands, d, False))


def _plain_direction(comp: XlaComputation) -> str | None:
    """``"GT"`` / ``"LT"`` when the comparator is ``p0 > p1`` / ``p0 < p1`` (Gt, Lt, or Compare with a
    float comparison) on operand 0: the comparators jax's approx_max_k / approx_min_k build."""
    root, params = comp.root_instruction, comp.parameters
    if tuple(root.operands) != (params[0].id, params[1].id):
        return None
    if root.opcode in ("Gt", "Lt"):
        return root.opcode.upper()
    if root.opcode == "Compare" and root.attrs["direction"].value in ("GT", "LT"):
        compare_type = root.attrs.get("compare_type")
        if compare_type is None or compare_type.value == "FLOAT":
            return root.attrs["direction"].value
    return None


@lowering("ApproxTopK")
def approx_top_k(ctx: LoweringContext, operands: list[Any], init_values: list[Any]) -> tuple[Any, ...]:
    """jax.lax.approx_max_k / approx_min_k (XLA's ApproxTopK: approximate on TPU, its fallback elsewhere)
    when operand 0 is a float ranked by a plain greater-than / less-than, the other operands gathered
    at the indices it returns (a negative index: a bin of padding, the init values); otherwise the
    fallback's sort and slice, which is one of the allowed results."""
    direction = _plain_direction(ctx.attr("comparator"))
    x = operands[0]
    if direction is None or not jnp.issubdtype(x.dtype, jnp.floating):
        return approx_top_k_fallback(ctx, operands, init_values)
    d = ctx.attr("reduction_dim")
    search = lax.approx_max_k if direction == "GT" else lax.approx_min_k
    _, index = search(x, ctx.attr("top_k"), reduction_dimension=d, recall_target=float(ctx.attr("recall_target")),
                      reduction_input_size_override=ctx.attr("reduction_input_size_override"),
                      aggregate_to_topk=bool(ctx.attr("aggregate_to_topk")))
    padding = index < 0
    safe = jnp.where(padding, 0, index)
    return tuple(jnp.where(padding, v, jnp.take_along_axis(y, safe, axis=d)) for y, v in zip(operands, init_values))


@lowering("TopK")
def top_k(ctx: LoweringContext, operand: Any) -> tuple[Any, Any]:
    """largest: lax.top_k (XLA's TopK: the total order, +NaN first, equal elements lower index first);
    smallest: a sort of (total-order key, index) pairs."""
    k = ctx.attr("k")
    if ctx.attr("largest"):
        values, index = lax.top_k(operand, k)
        return values, index.astype(jnp.int32)
    last = operand.ndim - 1
    index = lax.broadcasted_iota(jnp.int32, operand.shape, last)
    _, index = lax.sort((_total_order_key(operand), index), dimension=last, num_keys=2)
    index = lax.slice_in_dim(index, 0, k, axis=last)
    return jnp.take_along_axis(operand, index, axis=-1), index


def _total_order_key(x: Any) -> Any:
    """Signed integers ordered as XLA's total order orders ``x`` (-NaN < -inf < -0 < +0 < inf < +NaN)."""
    dtype = jnp.dtype(x.dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        signed = jnp.dtype(f"int{8 * dtype.itemsize}")
        bits = lax.bitcast_convert_type(x, signed)
        return jnp.where(bits < 0, ~(bits & jnp.iinfo(signed).max), bits).astype(jnp.int64 if dtype.itemsize == 8
                                                                                   else jnp.int32)
    if dtype == jnp.bool_:
        return x.astype(jnp.int32)
    if jnp.issubdtype(dtype, jnp.unsignedinteger):
        if dtype.itemsize < 4:
            return x.astype(jnp.int32)
        signed = jnp.dtype(f"int{8 * dtype.itemsize}")
        return lax.bitcast_convert_type(x ^ jnp.array(1 << (8 * dtype.itemsize - 1), dtype), signed)
    return x.astype(jnp.int64) if dtype.itemsize == 8 else x.astype(jnp.int32)
