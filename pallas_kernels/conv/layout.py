"""Wrapper-side layout: canonical NHWC/HWIO operands to the kernels' flat phase
layout and back (see :mod:`pallas_kernels.toolkit.windows`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from pallas_kernels.conv.plan import ConvPlan
from pallas_kernels.toolkit.windows import (
    FlatWindows,
    pad_and_dilate,
    to_flat_phases,
    unflatten_output,
)


def canonical_operands(lhs: jax.Array, rhs: jax.Array, plan: ConvPlan):
    """``[N, H, W, C]`` input and ``[KH, KW, I, O]`` filter (1-D gets ``H = 1``)."""
    x = jnp.transpose(lhs, plan.lhs_permutation)
    if plan.batch_groups > 1:  # [g*N' + n, ..., c] -> [n, ..., g*C + c]
        groups = plan.batch_groups
        x = x.reshape(groups, x.shape[0] // groups, *x.shape[1:])
        x = jnp.moveaxis(x, 0, -2)
        x = x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])
    w = jnp.transpose(rhs, plan.rhs_permutation)
    if plan.spatial_rank == 1:
        x, w = x[:, None], w[None]
    return x, w


def grouped_flat_input(x: jax.Array, plan: ConvPlan, windows: FlatWindows) -> jax.Array:
    """``[N, H, W, C]`` -> ``[G, N, P, L, C/G]`` (depthwise: ``[1, N, P, L, O]``)."""
    x = pad_and_dilate(x, plan.padding, plan.lhs_dilation)
    flat = to_flat_phases(x, windows, windows.input_rows(windows.out_rows))
    if plan.kind == "depthwise":
        multiplier = plan.out_channels // plan.in_channels
        if multiplier > 1:  # output channel o reads input channel o // multiplier
            flat = jnp.repeat(flat, multiplier, axis=-1)
        return flat[None]
    n, p, length, _ = flat.shape
    groups = plan.groups
    flat = flat.reshape(n, p, length, groups, plan.in_channels // groups)
    return jnp.moveaxis(flat, 3, 0)


def grouped_taps_filter(w: jax.Array, plan: ConvPlan) -> jax.Array:
    """``[KH, KW, I, O]`` -> ``[G, T, I, O/G]`` (depthwise: ``[1, T, 1, O]``)."""
    kh, kw, filter_in, out_channels = w.shape
    taps = w.reshape(kh * kw, filter_in, out_channels)
    if plan.kind == "depthwise":
        return taps[None]
    groups = plan.groups
    taps = taps.reshape(kh * kw, filter_in, groups, out_channels // groups)
    return jnp.moveaxis(taps, 2, 0)


def output_from_groups(y: jax.Array, plan: ConvPlan, windows: FlatWindows) -> jax.Array:
    """``[G, N, R, O/G]`` flat output -> the requested output layout."""
    groups, n, rows, per_group = y.shape
    y = jnp.moveaxis(y, 0, 2).reshape(n, rows, groups * per_group)
    return to_output_layout(unflatten_output(y, windows), plan)


def to_output_layout(y: jax.Array, plan: ConvPlan) -> jax.Array:
    """Canonical ``[N, Ho, Wo, O]`` -> the out spec's layout (and rank)."""
    if plan.spatial_rank == 1:
        y = y[:, 0]
    return jnp.transpose(y, plan.out_permutation)
