"""Float64 NumPy references for ReduceWindow and SelectAndScatter (add).

Written from XLA's semantics, independently of the kernels: the operand is
base-dilated and padded with the init value, every window is reduced starting
from the init value; SelectAndScatter gives each window's source value to the
first (row-major) in-bounds element that the select comparison prefers.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

REDUCERS = {"add": np.add, "max": np.maximum, "min": np.minimum, "mul": np.multiply}


def _exact(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return x.astype(np.int64) if np.issubdtype(x.dtype, np.integer) else x.astype(np.float64)


def dilate_and_pad(x: np.ndarray, value, padding, base_dilation) -> np.ndarray:
    """XLA Pad with interior padding ``base_dilation - 1`` (negative edges crop)."""
    dilated_shape = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base_dilation)]
    dilated = np.full(dilated_shape, value, x.dtype)
    dilated[tuple(slice(None, None, b) for b in base_dilation)] = x
    grown = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    out = np.pad(dilated, grown, constant_values=value)
    crop = tuple(slice(max(-lo, 0), out.shape[i] - max(-hi, 0))
                 for i, (lo, hi) in enumerate(padding))
    return out[crop]


def reference_reduce_window(x, init_value, computation: str, window: Sequence[int],
                            strides: Sequence[int], padding, base_dilation=None,
                            window_dilation=None) -> np.ndarray:
    """float64 (int64 wrapped to the input dtype for integers) reduce_window."""
    x_np = np.asarray(x)
    rank = x_np.ndim
    base_dilation = base_dilation or (1,) * rank
    window_dilation = window_dilation or (1,) * rank
    exact = _exact(x_np)
    init = exact.dtype.type(init_value)
    padded = dilate_and_pad(exact, init, padding, base_dilation)
    spans = [(w - 1) * r + 1 for w, r in zip(window, window_dilation)]
    out_shape = [max((p - span) // s + 1, 0) for p, span, s in zip(padded.shape, spans, strides)]
    result = np.full(out_shape, init, exact.dtype)
    reducer = REDUCERS[computation]
    for offsets in itertools.product(*(range(w) for w in window)):
        index = tuple(slice(k * r, k * r + (o - 1) * s + 1, s)
                      for k, r, o, s in zip(offsets, window_dilation, out_shape, strides))
        with np.errstate(over="ignore"):
            result = reducer(result, padded[index])
    if np.issubdtype(x_np.dtype, np.integer):
        return result.astype(x_np.dtype).astype(np.int64)  # XLA wraps
    return result


def reference_select_and_scatter_add(source, operand, select: str, window: Sequence[int],
                                     strides: Sequence[int], padding) -> np.ndarray:
    """SelectAndScatter with scatter = add; padding is never selected."""
    operand_np = _exact(np.asarray(operand))
    source_np = _exact(np.asarray(source))
    result = np.zeros(operand_np.shape, source_np.dtype)
    prefers = np.greater if select == "ge" else np.less  # strict: ties keep the first
    for out_index in np.ndindex(*source_np.shape):
        chosen = None
        for offsets in itertools.product(*(range(w) for w in window)):
            position = tuple(o * s + k - lo for o, s, k, (lo, _)
                             in zip(out_index, strides, offsets, padding))
            if any(not 0 <= p < n for p, n in zip(position, operand_np.shape)):
                continue
            if chosen is None or prefers(operand_np[position], operand_np[chosen]):
                chosen = position
        if chosen is not None:
            result[chosen] += source_np[out_index]
    return result


def split_infinities(actual, expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Check non-finite reference values exactly; zero them for a norm-wise compare.

    Windows made only of -inf/+inf padding reduce to infinities, which a
    relative-error comparison cannot handle.
    """
    actual_np = np.asarray(actual).astype(np.float64)
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(actual_np[~finite], expected[~finite])
    return np.where(finite, actual_np, 0), np.where(finite, expected, 0)
