"""``lax.conv_general_dilated`` semantics in float64 NumPy (no lax involved).

Dimension numbers are given as strings (``("NHWC", "HWIO", "NHWC")``) or None
(``NC<spatial>``/``OI<spatial>``); spatial axes are matched by letter, in the
order they appear in the filter spec.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from kernel_testing import to_float64

DEFAULT_SPECS = {1: ("NCW", "OIW", "NCW"), 2: ("NCHW", "OIHW", "NCHW"),
                 3: ("NCDHW", "OIDHW", "NCDHW")}


def same_padding(size: int, window: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow/XLA "SAME" padding for one spatial axis."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (window - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def reference_conv(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: Sequence[str] | None = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
) -> np.ndarray:
    x, w = to_float64(lhs), to_float64(rhs)
    rank = x.ndim - 2
    lhs_spec, rhs_spec, out_spec = dimension_numbers or DEFAULT_SPECS[rank]
    spatial = [c for c in rhs_spec if c not in "IO"]
    x = np.transpose(x, [lhs_spec.index(c) for c in ("N", "C", *spatial)])
    w = np.transpose(w, [rhs_spec.index(c) for c in ("O", "I", *spatial)])
    lhs_dilation = tuple(lhs_dilation or (1,) * rank)
    rhs_dilation = tuple(rhs_dilation or (1,) * rank)
    window = w.shape[2:]
    if isinstance(padding, str):
        padding = ([same_padding(s, k, st, d) for s, k, st, d in
                    zip(x.shape[2:], window, window_strides, rhs_dilation)]
                   if padding == "SAME" else [(0, 0)] * rank)
    # Base dilation: insert zeros.
    dilated = np.zeros(x.shape[:2] + tuple((s - 1) * d + 1 for s, d in
                                           zip(x.shape[2:], lhs_dilation)))
    dilated[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dilation)] = x
    # Padding; negative padding crops.
    grown = np.pad(dilated, [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding])
    x = grown[(slice(None), slice(None)) + tuple(
        slice(-min(lo, 0), grown.shape[2 + i] + min(hi, 0))
        for i, (lo, hi) in enumerate(padding))]
    out_spatial = [(s - (k - 1) * d - 1) // st + 1
                   for s, k, d, st in zip(x.shape[2:], window, rhs_dilation, window_strides)]
    groups = feature_group_count
    in_per_group, out_per_group = x.shape[1] // groups, w.shape[0] // groups
    # Batch groups: output feature block b (of O / batch_group_count features) sees only the
    # b-th block of N / batch_group_count input batch elements; the output batch is that size.
    batches = batch_group_count
    batch_per_group, out_per_batch_group = x.shape[0] // batches, w.shape[0] // batches
    out = np.zeros((batch_per_group, w.shape[0], *out_spatial))
    for tap in itertools.product(*(range(k) for k in window)):
        patch = x[(slice(None), slice(None)) + tuple(
            slice(t * d, t * d + (o - 1) * st + 1, st)
            for t, d, o, st in zip(tap, rhs_dilation, out_spatial, window_strides))]
        for o in range(w.shape[0]):
            g, b = o // out_per_group, o // out_per_batch_group
            xs = patch[b * batch_per_group:(b + 1) * batch_per_group, g * in_per_group:(g + 1) * in_per_group]
            out[:, o] += np.einsum("nc...,c->n...", xs, w[o, :, *tap])
    canonical = ("N", "C", *spatial)
    return np.transpose(out, [canonical.index(c) for c in out_spec])


def numpy_random(seed: int, shape: Sequence[int], dtype: Any) -> jax.Array:
    """Standard-normal test input from NumPy's generator (no per-shape jit compile)."""
    values = np.random.default_rng(seed).standard_normal(tuple(shape))
    return jnp.asarray(values.astype(np.float32)).astype(dtype)
