"""The one shape rule of the convolution family (Conv, ConvWithGeneralPadding,
ConvWithGeneralDimensions, ConvGeneral, ConvGeneralDilated).

The narrower ops are ConvGeneralDilated with some arguments fixed: :func:`general_arguments`
turns any of them into ConvGeneralDilated's canonical arguments (explicit padding pairs, dilations,
dimension numbers, window reversal). The reference evaluator and the lowerings use it too.

Constraint ids are shared by the five specs: C1 element types, C2 ranks and window sizes,
C3 strides, C4 padding, C5 group counts, C6 lhs features, C7 output features, C8 lhs batch,
C9 preferred_element_type; ops with dimension_numbers add C10, ConvGeneralDilated adds
C11 dilations and C12 window_reversal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from backend.hlo.attribute_types import ConvolutionDimensionNumbers, PrecisionConfig, default_conv_dimension_numbers
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.hlo.xla_client_helpers import window_padding_type_to_pad_values
from backend.rules import OpContext, shape_rule
from backend.rules.linear_algebra import check_preferred_element_type

PADDING_TYPES = ("SAME", "VALID")
CONV_OPS = ("Conv", "ConvWithGeneralPadding", "ConvWithGeneralDimensions", "ConvGeneral", "ConvGeneralDilated")


@dataclasses.dataclass(frozen=True)
class ConvArguments:
    """ConvGeneralDilated's arguments, with every default filled in."""

    window_strides: tuple[int, ...]
    padding: tuple[tuple[int, int], ...]
    lhs_dilation: tuple[int, ...]
    rhs_dilation: tuple[int, ...]
    dimension_numbers: ConvolutionDimensionNumbers
    feature_group_count: int
    batch_group_count: int
    precision_config: PrecisionConfig | None
    preferred_element_type: PrimitiveType | None
    window_reversal: tuple[bool, ...]


def dimension_numbers_of(attrs: dict[str, Any], rank: int) -> ConvolutionDimensionNumbers:
    """The op's dimension numbers, XLA's default layout where it has none."""
    dn = attrs.get("dimension_numbers")
    return dn if dn is not None else default_conv_dimension_numbers(max(rank - 2, 0))


def general_arguments(ctx: Any, lhs_dims: Sequence[int], rhs_dims: Sequence[int]) -> ConvArguments:
    """Any convolution op's attributes (``ctx.attrs``) as ConvGeneralDilated's canonical ones.

    Assumes what it reads is well formed (the shape rule checks ranks, dimension numbers,
    strides and the padding type before calling it).
    """
    attrs = ctx.attrs
    dn = dimension_numbers_of(attrs, len(lhs_dims))
    n = len(dn.input_spatial_dimensions)
    strides = tuple(attrs["window_strides"])
    padding = attrs["padding"]
    if isinstance(padding, str):
        padding = window_padding_type_to_pad_values(padding, [lhs_dims[d] for d in dn.input_spatial_dimensions],
                                                    [rhs_dims[d] for d in dn.kernel_spatial_dimensions], strides)
    reversal = attrs.get("window_reversal")
    return ConvArguments(
        window_strides=strides,
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        lhs_dilation=tuple(attrs.get("lhs_dilation") or (1,) * n),
        rhs_dilation=tuple(attrs.get("rhs_dilation") or (1,) * n),
        dimension_numbers=dn,
        feature_group_count=attrs["feature_group_count"],
        batch_group_count=attrs["batch_group_count"],
        precision_config=attrs.get("precision_config"),
        preferred_element_type=attrs.get("preferred_element_type"),
        window_reversal=reversal if reversal is not None else (False,) * n)


def dilated_size(size: int, dilation: int) -> int:
    """The size of a dimension with ``dilation - 1`` holes between its elements."""
    return 0 if size == 0 else (size - 1) * dilation + 1


def output_spatial_size(padded: int, window: int, stride: int) -> int:
    """The number of window positions along a (padded, dilated) input dimension."""
    return 0 if window > padded else (padded - window) // stride + 1


def _check_ranks(ctx: OpContext, lhs: Shape, rhs: Shape) -> None:
    if lhs.rank() < 2 or rhs.rank() != lhs.rank():
        raise ctx.fail("C2", f"lhs and rhs must have the same rank n+2 >= 2, got {lhs} and {rhs}", "rhs",
                       lhs=str(lhs), rhs=str(rhs))


def _check_dimension_numbers(ctx: OpContext, dn: ConvolutionDimensionNumbers, rank: int) -> None:
    groups = (("input", dn.input_batch_dimension, dn.input_feature_dimension, dn.input_spatial_dimensions),
              ("kernel", dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
               dn.kernel_spatial_dimensions),
              ("output", dn.output_batch_dimension, dn.output_feature_dimension, dn.output_spatial_dimensions))
    for side, first, second, spatial in groups:
        dims = [first, second, *spatial]
        if len(dims) != rank or sorted(dims) != list(range(rank)):
            raise ctx.fail("C10", f"the {side} dimension numbers {dims} must name each of the {rank} dimensions "
                           "exactly once", "dimension_numbers", dimension_numbers=str(dn))


def _check_window_lists(ctx: OpContext, n: int) -> None:
    strides = ctx.attr("window_strides")
    if len(strides) != n or any(s < 1 for s in strides):
        raise ctx.fail("C3", f"window_strides must be {n} positive integers, got {list(strides)}", "window_strides",
                       window_strides=strides)
    for name in ("lhs_dilation", "rhs_dilation"):
        value = ctx.attrs.get(name)
        if value is not None and (len(value) != n or any(d < 1 for d in value)):
            raise ctx.fail("C11", f"{name} must be {n} integers >= 1, got {list(value)}", name, **{name: value})
    reversal = ctx.attrs.get("window_reversal")
    if reversal is not None and len(reversal) != n:
        raise ctx.fail("C12", f"window_reversal must be {n} booleans, got {list(reversal)}", "window_reversal")
    padding = ctx.attr("padding")
    if isinstance(padding, str) and padding.upper() not in PADDING_TYPES:
        raise ctx.fail("C4", f"padding must be 'SAME' or 'VALID', got {padding!r}", "padding", padding=padding)
    if not isinstance(padding, str) and len(padding) != n:
        raise ctx.fail("C4", f"padding must have {n} (low, high) pairs, got {list(padding)}", "padding",
                       padding=padding)


def _check_groups(ctx: OpContext, args: ConvArguments, lhs: Shape, rhs: Shape) -> None:
    fgc, bgc, dn = args.feature_group_count, args.batch_group_count, args.dimension_numbers
    if fgc < 1 or bgc < 1 or (fgc > 1 and bgc > 1):
        raise ctx.fail("C5", f"feature_group_count ({fgc}) and batch_group_count ({bgc}) must be positive and "
                       "not both greater than 1", "feature_group_count", feature_group_count=fgc,
                       batch_group_count=bgc)
    in_features = lhs.dimensions()[dn.input_feature_dimension]
    kernel_in = rhs.dimensions()[dn.kernel_input_feature_dimension]
    if in_features != kernel_in * fgc:
        raise ctx.fail("C6", f"the lhs feature size ({in_features}) must equal the rhs input feature size "
                       f"({kernel_in}) times feature_group_count ({fgc})", "rhs", lhs=str(lhs), rhs=str(rhs))
    out_features = rhs.dimensions()[dn.kernel_output_feature_dimension]
    if out_features % fgc or out_features % bgc:
        raise ctx.fail("C7", f"the rhs output feature size ({out_features}) must be a multiple of "
                       f"feature_group_count ({fgc}) and of batch_group_count ({bgc})", "rhs", rhs=str(rhs))
    batch = lhs.dimensions()[dn.input_batch_dimension]
    if batch % bgc:
        raise ctx.fail("C8", f"the lhs batch size ({batch}) must be a multiple of batch_group_count ({bgc})",
                       "batch_group_count", lhs=str(lhs), batch_group_count=bgc)


def _spatial_output(ctx: OpContext, args: ConvArguments, lhs: Shape, rhs: Shape) -> list[int]:
    dn, out = args.dimension_numbers, []
    for i, (l_dim, r_dim) in enumerate(zip(dn.input_spatial_dimensions, dn.kernel_spatial_dimensions)):
        window = rhs.dimensions()[r_dim]
        if window < 1:
            raise ctx.fail("C2", f"rhs spatial dimension {r_dim} (a window size) must be >= 1, got {window}", "rhs",
                           rhs=str(rhs))
        low, high = args.padding[i]
        padded = low + dilated_size(lhs.dimensions()[l_dim], args.lhs_dilation[i]) + high
        if padded < 0:
            raise ctx.fail("C4", f"padding ({low}, {high}) removes more than the {i}-th spatial dimension "
                           f"of the (dilated) lhs holds", "padding", lhs=str(lhs), padding=args.padding)
        out.append(output_spatial_size(padded, dilated_size(window, args.rhs_dilation[i]), args.window_strides[i]))
    return out


@shape_rule("convolution")
def convolution(ctx: OpContext) -> Shape:
    lhs, rhs = ctx.shape("lhs"), ctx.shape("rhs")
    _check_ranks(ctx, lhs, rhs)
    dn = dimension_numbers_of(ctx.attrs, lhs.rank())
    _check_dimension_numbers(ctx, dn, lhs.rank())
    _check_window_lists(ctx, len(dn.input_spatial_dimensions))
    args = general_arguments(ctx, lhs.dimensions(), rhs.dimensions())
    _check_groups(ctx, args, lhs, rhs)
    spatial = _spatial_output(ctx, args, lhs, rhs)
    etype = check_preferred_element_type(ctx, lhs.element_type(), "C9")
    dims = [0] * lhs.rank()
    dims[dn.output_batch_dimension] = lhs.dimensions()[dn.input_batch_dimension] // args.batch_group_count
    dims[dn.output_feature_dimension] = rhs.dimensions()[dn.kernel_output_feature_dimension]
    for d, size in zip(dn.output_spatial_dimensions, spatial):
        dims[d] = size
    return Shape.array_shape(etype, dims)

