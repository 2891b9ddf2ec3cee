"""Deciding whether a ``conv_general_dilated`` call runs a kernel, and how.

Any dimension numbers are canonicalized to channels-last: the input to
``[N, H, W, C]``, the filter to ``[KH, KW, I, O]`` and the output is produced as
``[N, Ho, Wo, O]`` then transposed to the requested layout.  1-D convolutions
get a unit ``H`` axis.  The plan picks one of three kernels:

* ``"matmul"`` — 1x1 filters without padding or base dilation (any stride:
  strides subsample the input first), ungrouped: ``pallas_kernels.dot_general``.
* ``"depthwise"`` — one input channel per group (``feature_group_count == C``):
  a VPU multiply-add per tap (the MXU/tensor cores would see K = 1).
* ``"implicit_gemm"`` — everything else: one dot per filter tap, per group.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from pallas_kernels.conv.tpu_kernel import choose_tpu_conv_blocks
from pallas_kernels.dot.plan import PrecisionPair, canonical_precision
from pallas_kernels.toolkit.decisions import KernelDecision
from pallas_kernels.toolkit.windows import FlatWindows, flat_windows

OP_NAME = "conv_general_dilated"

_SUPPORTED_OUTPUTS: dict[str, tuple[str, ...]] = {
    "bfloat16": ("bfloat16", "float32"),
    "float16": ("float16", "float32"),
    "float32": ("float32",),
}


@dataclasses.dataclass(frozen=True)
class ConvPlan:
    """How a ``conv_general_dilated`` call maps onto the kernels (2-D, NHWC/HWIO)."""

    kind: str
    spatial_rank: int
    lhs_permutation: tuple[int, ...]
    rhs_permutation: tuple[int, ...]
    out_permutation: tuple[int, ...]
    """Permutes the canonical ``[N, spatial..., O]`` output into the out spec."""
    batch: int
    in_spatial: tuple[int, int]
    window: tuple[int, int]
    in_channels: int
    out_channels: int
    groups: int
    strides: tuple[int, int]
    padding: tuple[tuple[int, int], tuple[int, int]]
    lhs_dilation: tuple[int, int]
    rhs_dilation: tuple[int, int]
    out_spatial: tuple[int, int]
    input_dtype: np.dtype
    out_dtype: np.dtype
    precision: PrecisionPair
    batch_groups: int = 1
    """``batch_group_count``: the canonical input's batch splits into this many groups that
    become feature groups (``[g*N' + n, ..., c]`` -> ``[n, ..., g*C + c]``), as XLA defines it."""

    @property
    def padded_spatial(self) -> tuple[int, int]:
        """Spatial size after base dilation and (possibly negative) padding."""
        return tuple(  # type: ignore[return-value]
            (size - 1) * d + 1 + lo + hi
            for size, d, (lo, hi) in zip(self.in_spatial, self.lhs_dilation, self.padding))

    def windows(self) -> FlatWindows:
        """Window geometry of the flat phase layout the kernels use."""
        return flat_windows(self.padded_spatial, self.window, self.strides,
                            self.rhs_dilation)

    @property
    def flops(self) -> int:
        """2 * multiply-adds of the convolution as specified (no padding waste)."""
        per_output = math.prod(self.window) * self.in_channels // self.groups
        return 2 * self.batch * math.prod(self.out_spatial) * self.out_channels * per_output


def _fallback(reason: str) -> KernelDecision:
    return KernelDecision.fallback(OP_NAME, reason)


def _as_pairs(values: Any, rank: int, name: str) -> tuple[int, ...] | str:
    if values is None:
        return (1,) * rank
    values = tuple(int(v) for v in values)
    if len(values) != rank or any(v < 1 for v in values):
        return f"{name} must be {rank} positive integers, got {values}"
    return values


def _resolve_padding(padding: Any, in_spatial: Sequence[int], window: Sequence[int],
                     strides: Sequence[int], rhs_dilation: Sequence[int],
                     lhs_dilation: Sequence[int]) -> tuple[tuple[int, int], ...] | str:
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            return "string padding with lhs_dilation is rejected by lax (give explicit pads)"
        effective = [(k - 1) * d + 1 for k, d in zip(window, rhs_dilation)]
        try:
            pads = jax.lax.padtype_to_pads(in_spatial, effective, strides, padding)
        except (ValueError, TypeError, RuntimeError) as error:
            return f"padding {padding!r}: {error}"
        return tuple((int(lo), int(hi)) for lo, hi in pads)
    try:
        pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        return f"malformed padding {padding!r}"
    if len(pads) != len(in_spatial):
        return f"padding has {len(pads)} pairs for {len(in_spatial)} spatial dims"
    return pads


def _check_dtypes(lhs: Any, rhs: Any, preferred: Any) -> tuple[np.dtype, np.dtype] | str:
    lhs_dtype, rhs_dtype = np.dtype(lhs.dtype), np.dtype(rhs.dtype)
    if lhs_dtype != rhs_dtype:
        return f"mixed input dtypes {lhs_dtype.name} x {rhs_dtype.name} are not supported"
    allowed = _SUPPORTED_OUTPUTS.get(lhs_dtype.name)
    if allowed is None:
        return (f"input dtype {lhs_dtype.name} is not supported "
                "(kernel covers bfloat16, float16 and float32)")
    out_dtype = lhs_dtype if preferred is None else np.dtype(preferred)
    if out_dtype.name not in allowed:
        return (f"{lhs_dtype.name} inputs with output dtype {out_dtype.name} are not "
                f"supported (kernel produces {', '.join(allowed)})")
    return lhs_dtype, out_dtype


def plan_conv_general_dilated(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Any = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: Any = None,
    preferred_element_type: Any = None,
    out_sharding: Any = None,
) -> KernelDecision:
    """The kernel plan for ``lax.conv_general_dilated(...)`` or a fallback reason."""
    if out_sharding is not None:
        return _fallback("out_sharding is not supported by the kernel")
    lhs_shape, rhs_shape = tuple(np.shape(lhs)), tuple(np.shape(rhs))
    if len(lhs_shape) != len(rhs_shape) or len(lhs_shape) < 3:
        return _fallback("invalid call: lhs and rhs must have the same rank >= 3")
    rank = len(lhs_shape) - 2
    if rank > 2:
        return _fallback(f"{rank}-D convolutions are not supported (kernel covers 1-D and 2-D)")
    if batch_group_count != 1:
        return _plan_batch_groups(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                                  dimension_numbers, feature_group_count, int(batch_group_count),
                                  precision, preferred_element_type)
    dtypes = _check_dtypes(lhs, rhs, preferred_element_type)
    if isinstance(dtypes, str):
        return _fallback(dtypes)
    pair = canonical_precision(precision)
    if pair is None:
        return _fallback(f"precision {precision!r} (dot algorithms) is not supported")
    try:
        numbers = jax.lax.conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    except (TypeError, ValueError) as error:
        return _fallback(f"invalid call: dimension_numbers: {error}")
    lhs_spec, rhs_spec, out_spec = (tuple(s) for s in numbers)
    batch, channels = lhs_shape[lhs_spec[0]], lhs_shape[lhs_spec[1]]
    out_channels, filter_in = rhs_shape[rhs_spec[0]], rhs_shape[rhs_spec[1]]
    in_spatial = tuple(lhs_shape[d] for d in lhs_spec[2:])
    window = tuple(rhs_shape[d] for d in rhs_spec[2:])
    groups = int(feature_group_count)
    if groups < 1 or channels % groups or out_channels % groups or filter_in * groups != channels:
        return _fallback("invalid call: feature_group_count does not match the channel counts")
    checked = [_as_pairs(v, rank, n) for v, n in ((window_strides, "window_strides"),
                                                  (lhs_dilation, "lhs_dilation"),
                                                  (rhs_dilation, "rhs_dilation"))]
    for value in checked:
        if isinstance(value, str):
            return _fallback(f"invalid call: {value}")
    strides, base_dilation, window_dilation = checked
    pads = _resolve_padding(padding, in_spatial, window, strides, window_dilation,
                            base_dilation)
    if isinstance(pads, str):
        return _fallback(f"invalid call: {pads}")
    out_spatial = []
    for size, (lo, hi), k, s, ld, rd in zip(in_spatial, pads, window, strides,
                                            base_dilation, window_dilation):
        dilated = (size - 1) * ld + 1 if size else 0
        out_spatial.append(max(0, (dilated + lo + hi - (k - 1) * rd - 1) // s + 1))
    if 0 in (batch, channels, out_channels, *in_spatial, *window, *out_spatial):
        return _fallback("an operand or the result is empty (a zero-size dimension)")

    def two_d(values: tuple, fill: Any) -> tuple:
        return values if rank == 2 else (fill, *values)

    out_perm = [0] * (rank + 2)  # canonical axis i goes to out_spec position
    for canonical, axis in enumerate((out_spec[0], *out_spec[2:], out_spec[1])):
        out_perm[axis] = canonical
    plan = ConvPlan(
        kind="implicit_gemm",
        spatial_rank=rank,
        lhs_permutation=(lhs_spec[0], *lhs_spec[2:], lhs_spec[1]),
        rhs_permutation=(*rhs_spec[2:], rhs_spec[1], rhs_spec[0]),
        out_permutation=tuple(out_perm),
        batch=batch,
        in_spatial=two_d(in_spatial, 1),
        window=two_d(window, 1),
        in_channels=channels,
        out_channels=out_channels,
        groups=groups,
        strides=two_d(strides, 1),
        padding=two_d(pads, (0, 0)),
        lhs_dilation=two_d(base_dilation, 1),
        rhs_dilation=two_d(window_dilation, 1),
        out_spatial=two_d(tuple(out_spatial), 1),
        input_dtype=dtypes[0],
        out_dtype=dtypes[1],
        precision=pair,  # type: ignore[arg-type]
    )
    plan = dataclasses.replace(plan, kind=_kind(plan))
    if plan.kind != "matmul" and not _fits_tpu_vmem(plan):
        return _fallback("the halo'd input window and filter blocks do not fit in TPU "
                         f"VMEM ({plan.in_channels} channels, {plan.window} window)")
    return KernelDecision.kernel(OP_NAME, plan)


def _plan_batch_groups(lhs: Any, rhs: Any, window_strides: Any, padding: Any, lhs_dilation: Any,
                       rhs_dilation: Any, dimension_numbers: Any, feature_group_count: int,
                       batch_group_count: int, precision: Any, preferred_element_type: Any
                       ) -> KernelDecision:
    """``batch_group_count = B`` as feature groups: the input's batch splits into B groups of
    ``N/B``, group g becoming input-feature group g; output feature group g uses batch group g,
    exactly XLA's batch-group semantics. Plans the rewritten call and records the rewrite."""
    if feature_group_count != 1:
        return _fallback("invalid call: feature_group_count and batch_group_count cannot both be > 1")
    lhs_shape, rhs_shape = tuple(np.shape(lhs)), tuple(np.shape(rhs))
    try:
        numbers = jax.lax.conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    except (TypeError, ValueError) as error:
        return _fallback(f"invalid call: dimension_numbers: {error}")
    lhs_spec, rhs_spec, out_spec = (tuple(d) for d in numbers)
    batch, channels = lhs_shape[lhs_spec[0]], lhs_shape[lhs_spec[1]]
    groups = batch_group_count
    if groups < 1 or batch % groups or rhs_shape[rhs_spec[0]] % groups:
        return _fallback("invalid call: batch_group_count must divide the batch and the output features")
    rank = len(lhs_shape) - 2
    canonical = (batch // groups, *(lhs_shape[d] for d in lhs_spec[2:]), groups * channels)
    canonical_numbers = jax.lax.ConvDimensionNumbers((0, rank + 1, *range(1, rank + 1)), rhs_spec, out_spec)
    inner = plan_conv_general_dilated(
        jax.ShapeDtypeStruct(canonical, np.dtype(lhs.dtype)), rhs, window_strides, padding, lhs_dilation,
        rhs_dilation, canonical_numbers, groups, 1, precision, preferred_element_type)
    if not inner.uses_kernel:
        return _fallback(f"batch_group_count {groups} as feature groups: {inner.reason}")
    original_order = (lhs_spec[0], *lhs_spec[2:], lhs_spec[1])
    return KernelDecision.kernel(OP_NAME, dataclasses.replace(
        inner.plan, lhs_permutation=original_order, batch_groups=groups))


def _fits_tpu_vmem(plan: ConvPlan) -> bool:
    """The TPU variant finds blocks within the VMEM budget (both variants must lower)."""
    windows = plan.windows()
    depthwise = plan.kind == "depthwise"
    channels = plan.out_channels if depthwise else plan.in_channels // plan.groups
    blocks = choose_tpu_conv_blocks(
        windows.out_rows, len(windows.phases), windows.max_offset, channels,
        plan.out_channels // (1 if depthwise else plan.groups),
        len(windows.taps), plan.input_dtype, plan.out_dtype, depthwise)
    return blocks is not None


def _kind(plan: ConvPlan) -> str:
    if plan.groups > 1 and plan.groups == plan.in_channels:
        return "depthwise"
    pointwise = (plan.window == (1, 1) and plan.lhs_dilation == (1, 1)
                 and plan.padding == ((0, 0), (0, 0)))
    if pointwise and plan.groups == 1:
        return "matmul"
    return "implicit_gemm"
