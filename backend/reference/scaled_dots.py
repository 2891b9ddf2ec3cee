"""Reference evaluators of ScaledDot and RaggedDot, on DotGeneral's einsum."""

from __future__ import annotations

import numpy as np

from backend.hlo.attribute_types import DotDimensionNumbers, RaggedDotDimensionNumbers
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, non_finite
from backend.reference.linear_algebra import accumulation_may_overflow, dot_general_einsum, finite_magnitude
from backend.rules.linear_algebra import free_dimensions
from backend.rules.scaled_dots import BATCH, CONTRACTING, ragged_mode


def expand_scale(scale: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``scale`` (float64) repeated blockwise to ``shape``: element i of dimension d takes the scale of
    block ``i // (shape[d] // scale.shape[d])``."""
    out = scale.astype(np.float64)
    for d, (size, blocks) in enumerate(zip(shape, scale.shape)):
        out = np.repeat(out, size // blocks if blocks else 0, axis=d)
    return out


@evaluator("ScaledDot")
def scaled_dot(ctx: EvaluatorContext, lhs: np.ndarray, lhs_scale: np.ndarray, rhs: np.ndarray, rhs_scale: np.ndarray
               ) -> np.ndarray:
    with np.errstate(all="ignore"):
        a = lhs.astype(np.float64) * expand_scale(lhs_scale, lhs.shape)
        b = rhs.astype(np.float64) * expand_scale(rhs_scale, rhs.shape)
    return dot_general_einsum(a, b, ctx.attr("dimension_numbers"), ctx.shape.numpy_dtype())


@implementation_defined("ScaledDot")
def scaled_dot_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, lhs_scale: np.ndarray, rhs: np.ndarray,
                        rhs_scale: np.ndarray) -> dict[str, Allowed]:
    """``accumulation_overflow`` as for DotGeneral, in the type XLA dequantizes and accumulates in (f32; f64
    for an f64 result), and also where a dequantized operand element is beyond that type's range."""
    accumulate = np.dtype(np.float64 if ctx.shape.numpy_dtype() == np.float64 else np.float32)
    dn = ctx.attr("dimension_numbers")
    with np.errstate(all="ignore"):
        a = finite_magnitude(lhs.astype(np.float64) * expand_scale(lhs_scale, lhs.shape))
        b = finite_magnitude(rhs.astype(np.float64) * expand_scale(rhs_scale, rhs.shape))
    bound = dot_general_einsum(a, b, dn, np.dtype(np.float64))
    beyond = (dot_general_einsum(accumulation_may_overflow(a, accumulate).astype(np.float64), np.ones(b.shape), dn,
                                 np.dtype(np.float64))
              + dot_general_einsum(np.ones(a.shape), accumulation_may_overflow(b, accumulate).astype(np.float64), dn,
                                   np.dtype(np.float64)))
    return {"accumulation_overflow": Allowed(accumulation_may_overflow(bound, accumulate) | (beyond > 0),
                                             {"non_finite": non_finite})}


def group_bounds(group_sizes: np.ndarray, signed: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each group along the ragged dimension, shape ``[prefix..., g]``:
    groups follow each other from 0; a negative size counts as 0 (implementation-defined), or, with
    ``signed``, moves the next group's start back (jax's decomposition: the bounds are the signed
    cumulative sums, a group with a negative size is empty and the following ones may overlap earlier ones)."""
    sizes = group_sizes.astype(np.int64)
    sizes = sizes if signed else np.maximum(sizes, 0)
    ends = np.cumsum(sizes, axis=-1)
    return ends - sizes, ends


def membership(group_sizes: np.ndarray, length: int, j: int, signed: bool = False) -> np.ndarray:
    """Whether each position ``i < length`` of the ragged dimension is in group j: ``[prefix..., length]``."""
    starts, ends = group_bounds(group_sizes, signed)
    i = np.arange(length)
    return (starts[..., j, None] <= i) & (i < ends[..., j, None])


def place(mask: np.ndarray, ndim: int, prefix_dims: tuple[int, ...], dim: int) -> np.ndarray:
    """``mask`` of shape ``[prefix..., L]`` broadcastable over an array of rank ``ndim`` whose dimensions
    ``prefix_dims`` (in the prefix's order) and ``dim`` the mask's dimensions are; a mask without a
    prefix (group_sizes of rank 1) applies to every batch."""
    prefix_dims = prefix_dims if mask.ndim > 1 else ()
    dims = list(prefix_dims) + [dim]
    order = np.argsort(dims)
    target = [1] * ndim
    for d, size in zip(dims, mask.shape):
        target[d] = size
    return mask.transpose(order).reshape(target)


@evaluator("RaggedDot")
def ragged_dot(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray, group_sizes: np.ndarray, signed: bool = False
               ) -> np.ndarray:
    """RaggedDot with the groups of :func:`group_bounds` (``signed``: the signed cumulative sums, where a
    row in several groups gets the sum of their products)."""
    rdn: RaggedDotDimensionNumbers = ctx.attr("ragged_dot_dimension_numbers")
    dn = rdn.dot_dimension_numbers
    ragged = rdn.lhs_ragged_dimensions[0]
    out_dtype = ctx.shape.numpy_dtype()
    mode = ragged_mode(ragged, dn)
    if mode == BATCH:  # the groups split a batch dimension: every batch is an ordinary DotGeneral
        return dot_general_einsum(lhs, rhs, dn, out_dtype)
    num_groups, length = group_sizes.shape[-1], lhs.shape[ragged]
    if mode == CONTRACTING:  # group j sums over its own slice of the contracting dimension
        rhs_ragged = dn.rhs_contracting_dimensions[dn.lhs_contracting_dimensions.index(ragged)]
        parts = []
        for j in range(num_groups):
            m = membership(group_sizes, length, j, signed)
            a = np.where(place(m, lhs.ndim, dn.lhs_batch_dimensions, ragged), lhs, np.zeros((), lhs.dtype))
            b = np.where(place(m, rhs.ndim, dn.rhs_batch_dimensions, rhs_ragged), rhs, np.zeros((), rhs.dtype))
            parts.append(dot_general_einsum(a, b, dn, out_dtype))
        shape = ctx.shape.dimensions()
        return np.stack(parts) if parts else np.zeros(shape, out_dtype)
    # NON_CONTRACTING: the lhs rows of group j meet rhs's slice j of the group dimension; rows in no group give 0
    group = rdn.rhs_group_dimensions[0]
    dot_dn = DotDimensionNumbers(
        dn.lhs_contracting_dimensions, tuple(d - (d > group) for d in dn.rhs_contracting_dimensions),
        dn.lhs_batch_dimensions, tuple(d - (d > group) for d in dn.rhs_batch_dimensions))
    out_ragged = len(dn.lhs_batch_dimensions) + free_dimensions(
        lhs.ndim, dn.lhs_contracting_dimensions, dn.lhs_batch_dimensions).index(ragged)
    out_batch = tuple(range(len(dn.lhs_batch_dimensions)))
    result = np.zeros(ctx.shape.dimensions(), out_dtype)
    covered = np.zeros(result.shape, bool)
    for j in range(num_groups):
        rows = place(membership(group_sizes, length, j, signed), result.ndim, out_batch, out_ragged)
        product = dot_general_einsum(lhs, np.take(rhs, j, axis=group), dot_dn, out_dtype)
        result = np.where(rows, np.where(covered, result + product, product), result)
        covered = covered | rows
    return result


@implementation_defined("RaggedDot")
def ragged_dot_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray, group_sizes: np.ndarray) -> dict[str,
                        Allowed]:
    """``group_sizes_out_of_range``: the result of every batch whose group sizes (a row of group_sizes;
    all of them for sizes of shape [g]) hold a negative size or sum beyond the ragged dimension (the
    ragged batch mode ignores the sizes); the other outcome there: the groups of the signed cumulative
    sums, a row in several groups summing their products (jax's decomposition)."""
    rdn: RaggedDotDimensionNumbers = ctx.attr("ragged_dot_dimension_numbers")
    dn = rdn.dot_dimension_numbers
    ragged = rdn.lhs_ragged_dimensions[0]
    mode = ragged_mode(ragged, dn)
    if mode == BATCH:
        return {}
    sizes = group_sizes.astype(np.int64)
    bad = ((sizes < 0).any(axis=-1) | (sizes.sum(axis=-1) > lhs.shape[ragged]))[..., None]  # [prefix..., 1]
    shape = ctx.shape.dimensions()
    nb = len(dn.lhs_batch_dimensions)
    # the batch dimensions lead the result (after the group dimension in the contracting mode); the size-1
    # dimension of ``bad`` goes to one that is no batch dimension: the group one, or the last
    batch_dims, other = ((tuple(range(1, 1 + nb)), 0) if mode == CONTRACTING else (tuple(range(nb)), len(shape) - 1))
    mask = np.broadcast_to(place(bad, len(shape), batch_dims, other), shape)
    with np.errstate(all="ignore"):
        signed = ragged_dot(ctx, lhs, rhs, group_sizes, signed=True)
    return {"group_sizes_out_of_range": Allowed(mask, {"signed_cumulative_sums": signed})}
