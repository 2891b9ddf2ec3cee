"""XLA Scatter semantics in plain NumPy (float64 / int64), written from the
operation-semantics document independently of the kernel.

Update windows are applied one at a time in the row-major order of the update
scatter dimensions, so for ``replace`` the last update to an element wins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

COMBINE = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "min": lambda a, b: np.minimum(a, b),
    "max": lambda a, b: np.maximum(a, b),
    "replace": lambda a, b: b,
}


def wide(x: Any) -> np.ndarray:
    """float64 (int64 for integers) copy of ``x``."""
    x = np.asarray(x)
    return x.astype(np.int64 if np.issubdtype(x.dtype, np.integer) else np.float64)


def _window_sizes(operand_ndim, updates_shape, dnums):
    excluded = set(dnums.inserted_window_dims) | set(dnums.operand_batching_dims)
    window_operand_dims = [d for d in range(operand_ndim) if d not in excluded]
    sizes = [1] * operand_ndim
    for j, d in enumerate(window_operand_dims):
        sizes[d] = updates_shape[dnums.update_window_dims[j]]
    return sizes, window_operand_dims


def reference_scatter(operand: Any, indices: Any, updates: Any, dnums: Any,
                      combiner: str, mode: str = "drop") -> np.ndarray:
    """``lax.scatter_<combiner>`` computed element by element."""
    result, updates, indices = wide(operand).copy(), wide(updates), np.asarray(indices)
    combine = COMBINE[combiner]
    window_dims = list(dnums.update_window_dims)
    scatter_dims = [d for d in range(updates.ndim) if d not in window_dims]
    sizes, window_operand_dims = _window_sizes(result.ndim, updates.shape, dnums)
    for position in np.ndindex(*[updates.shape[d] for d in scatter_dims]):
        vector = indices[position]
        start = [0] * result.ndim
        for k, d in enumerate(dnums.scatter_dims_to_operand_dims):
            start[d] = int(vector[k])
        for od, idim in zip(dnums.operand_batching_dims, dnums.scatter_indices_batching_dims):
            start[od] = position[idim]
        if mode == "clip":
            start = [min(max(s, 0), n - w) for s, n, w in zip(start, result.shape, sizes)]
        elif any(s < 0 or s + w > n for s, n, w in zip(start, result.shape, sizes)):
            continue  # the window would leave the operand: skipped
        for window in np.ndindex(*[updates.shape[d] for d in window_dims]):
            update_index = [0] * updates.ndim
            for d, p in zip(scatter_dims, position):
                update_index[d] = p
            for d, p in zip(window_dims, window):
                update_index[d] = p
            target = list(start)
            for d, p in zip(window_operand_dims, window):
                target[d] += p
            target = tuple(target)
            result[target] = combine(result[target], updates[tuple(update_index)])
    return result
