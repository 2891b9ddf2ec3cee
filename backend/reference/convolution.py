"""Reference evaluator of the convolution family: a NumPy convolution in float64 / complex128 /
64-bit integers, one einsum per kernel tap, rounded once to the result type.

Every op is first turned into ConvGeneralDilated's canonical arguments (``general_arguments``);
the computation then follows the documented semantics literally: put lhs in (batch, feature,
spatial...) and rhs in (output feature, input feature, spatial...) order, reverse the window where
asked, dilate and pad the input, and sum input times kernel over each window position, per
feature group or batch group.
"""

from __future__ import annotations

import itertools

import numpy as np

from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, flushed, nan_in_a_part, non_finite, non_finite_parts
from backend.reference.elementwise import subnormal_mask, widen
from backend.reference.linear_algebra import (
    accumulation_may_overflow,
    finite_magnitude,
    is_inexact,
    rounded_accumulation,
)
from backend.rules.convolution import (
    CONV_OPS,
    ConvArguments,
    dilated_size,
    general_arguments,
    output_spatial_size,
)


def _widen(x: np.ndarray, as_float: bool = False) -> np.ndarray:
    """``widen``, with integers as float64 when ``as_float``."""
    wide = widen(x)
    return wide.astype(np.float64) if as_float and wide.dtype.kind in "iub" else wide


def _dilate_and_pad(x: np.ndarray, args: ConvArguments) -> np.ndarray:
    """Insert ``lhs_dilation - 1`` zeros between input elements, then pad (negative: crop) each
    spatial dimension of a (batch, feature, spatial...) array."""
    for i, (dilation, (low, high)) in enumerate(zip(args.lhs_dilation, args.padding)):
        axis = 2 + i
        size = x.shape[axis]
        shape = list(x.shape)
        shape[axis] = dilated_size(size, dilation)
        holes = np.zeros(shape, x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, dilation)
        holes[tuple(index)] = x
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(low, 0), max(high, 0))
        padded = np.pad(holes, widths)
        index[axis] = slice(max(-low, 0), padded.shape[axis] - max(-high, 0))
        x = padded[tuple(index)]
    return x


def _canonical(lhs: np.ndarray, rhs: np.ndarray, args: ConvArguments, as_float: bool
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """lhs as (batch, feature, spatial...) dilated and padded, with the spatial mask of its real
    (not padding, not hole) elements; rhs as (out, in, spatial...), reversed where asked."""
    dn = args.dimension_numbers
    x = np.transpose(_widen(lhs, as_float), (dn.input_batch_dimension, dn.input_feature_dimension,
                                             *dn.input_spatial_dimensions))
    w = np.transpose(_widen(rhs, as_float), (dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
                                             *dn.kernel_spatial_dimensions))
    w = np.flip(w, [2 + i for i, reverse in enumerate(args.window_reversal) if reverse])
    real = _dilate_and_pad(np.ones((1, 1, *x.shape[2:]), np.bool_), args)[0, 0]
    return _dilate_and_pad(x, args), real, w


def convolve(lhs: np.ndarray, rhs: np.ndarray, args: ConvArguments, as_float: bool = False
             ) -> tuple[np.ndarray, np.ndarray]:
    """The exact (wide) convolution in (batch, feature, spatial...) order, and where a non-finite
    kernel element met padding or a dilation hole (which contributes nothing, as in the pseudocode)."""
    x, real, w = _canonical(lhs, rhs, args, as_float)
    batch, out_features, in_features = x.shape[0], w.shape[0], w.shape[1]
    groups = args.feature_group_count * args.batch_group_count  # one of the two is 1
    window = w.shape[2:]
    out_spatial = [output_spatial_size(x.shape[2 + i], dilated_size(k, args.rhs_dilation[i]), args.window_strides[i])
                   for i, k in enumerate(window)]
    group_batch = batch // args.batch_group_count
    # (batch group, batch in group, feature group, feature in group, ...) -> (batch in group, group, feature, ...)
    x = x.reshape(args.batch_group_count, group_batch, args.feature_group_count, in_features, *x.shape[2:])
    x = np.moveaxis(x, 1, 0).reshape(group_batch, groups, in_features, *x.shape[4:])
    w = w.reshape(groups, out_features // groups, in_features, *window)
    out = np.zeros((group_batch, groups, out_features // groups, *out_spatial), x.dtype)
    skipped = np.zeros(out.shape, np.bool_)
    for tap in itertools.product(*(range(k) for k in window)) if 0 not in out_spatial else ():
        at = tuple(slice(t * d, t * d + s * (o - 1) + 1, s)
                   for t, d, s, o in zip(tap, args.rhs_dilation, args.window_strides, out_spatial))
        kernel = w[(slice(None),) * 3 + tap]
        hits = real[at]
        out += np.where(hits, np.einsum("ngi...,goi->ngo...", x[(slice(None),) * 3 + at], kernel), 0)
        non_finite = ~np.isfinite(kernel).all(axis=-1).reshape(1, *kernel.shape[:2], *(1,) * len(window))
        skipped |= non_finite & ~hits
    shape = (group_batch, out_features, *out_spatial)
    return out.reshape(shape), skipped.reshape(shape)


def _to_output_layout(y: np.ndarray, args: ConvArguments) -> np.ndarray:
    dn = args.dimension_numbers
    order = (dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions)
    return np.transpose(y, np.argsort(order))


@evaluator(*CONV_OPS)
def convolution(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    args = general_arguments(ctx, lhs.shape, rhs.shape)
    with np.errstate(all="ignore"):
        return _to_output_layout(convolve(lhs, rhs, args)[0], args).astype(ctx.shape.numpy_dtype())


def _grouped_non_finite(lhs: np.ndarray, rhs: np.ndarray, result_dims: tuple[int, ...]) -> np.ndarray:
    """Every result of a grouped convolution whose operands hold an inf or NaN anywhere: run as a dense
    convolution with a kernel masked to zero outside each group (and batch groups moved into
    features), an inf or NaN meets those zeros (inf x 0 = NaN) in results of other groups."""
    return np.full(result_dims, bool((~np.isfinite(lhs)).any() or (~np.isfinite(rhs)).any()))


def _non_finite_products(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray, args: ConvArguments) -> dict[str,
                         Allowed]:
    """``subnormals``: results where a subnormal element (XLA on CPU flushes it to 0) meets an inf or
    NaN (inf x 0 = NaN), IEEE or the flushed convolution; ``complex_non_finite``: complex results whose
    products meet an inf or NaN, the reference's parts or another formula's."""
    def meets(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        return _to_output_layout(convolve(x.astype(np.float64), w.astype(np.float64), args)[0] > 0, args)

    non_finite_lhs, non_finite_rhs = ~np.isfinite(lhs), ~np.isfinite(rhs)
    subnormal = meets(subnormal_mask(lhs), non_finite_rhs) | meets(non_finite_lhs, subnormal_mask(rhs))
    table = {"subnormals": Allowed(subnormal, {"flush": flushed(convolution, ctx, lhs, rhs)})}
    if np.iscomplexobj(lhs):
        table["complex_non_finite"] = Allowed(meets(non_finite_lhs, np.ones(rhs.shape)) |
                                              meets(np.ones(lhs.shape), non_finite_rhs),
                                              {"other_formula": non_finite_parts})
    return table


@implementation_defined(*CONV_OPS)
def convolution_outcomes(ctx: EvaluatorContext, lhs: np.ndarray, rhs: np.ndarray) -> dict[str, Allowed]:
    """``padding_times_non_finite``: where an inf/NaN kernel element meets padding or a hole, nothing added
    (XLA) or 0 * inf = NaN; ``accumulation_overflow``: float results where a product or partial sum may
    leave the type's range, the exact sum or a non-finite value; ``grouped_non_finite``: grouped
    convolutions with an inf/NaN operand element, the reference's value or NaN; ``subnormals`` and
    ``complex_non_finite``: see ``_non_finite_products``. (Signed integers wrap: one outcome, no mask.)"""
    if not is_inexact(ctx.shape.numpy_dtype()):
        return {}
    args = general_arguments(ctx, lhs.shape, rhs.shape)
    with np.errstate(all="ignore"):
        mask = _to_output_layout(convolve(lhs, rhs, args)[1], args)
        bound = _to_output_layout(convolve(finite_magnitude(lhs), finite_magnitude(rhs), args)[0], args)
        nan = np.full(mask.shape, np.nan).astype(ctx.shape.numpy_dtype())
        table = {"padding_times_non_finite": Allowed(mask, {"zeros": nan}),
                 "accumulation_overflow": Allowed(accumulation_may_overflow(bound, ctx.shape.numpy_dtype()),
                                                  {"non_finite": non_finite})}
        products = rhs.size // max(rhs.shape[args.dimension_numbers.kernel_output_feature_dimension], 1)
        rounding = rounded_accumulation(bound, products, ctx.shape.numpy_dtype())
        if rounding is not None:
            table["accumulation_rounding"] = rounding
        if args.feature_group_count * args.batch_group_count > 1:
            table["grouped_non_finite"] = Allowed(_grouped_non_finite(lhs, rhs, ctx.shape.dimensions()),
                                                  {"leaked_nan": nan_in_a_part})
        table.update(_non_finite_products(ctx, lhs, rhs, args))
    return table
