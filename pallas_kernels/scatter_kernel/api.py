"""``scatter``: ``jax.lax.scatter*`` served by a deterministic Pallas kernel."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from pallas_kernels.scatter_kernel.gpu_kernel import scatter_rows_gpu
from pallas_kernels.scatter_kernel.plan import OP_NAME, ScatterPlan, canonical_combiner, plan_scatter
from pallas_kernels.scatter_kernel.rows import (
    operand_table,
    result_from_table,
    row_ids,
    row_updates,
    sorted_row_updates,
)
from pallas_kernels.scatter_kernel.tpu_kernel import scatter_rows_tpu
from pallas_kernels.toolkit.decisions import register_planner
from pallas_kernels.toolkit.platforms import dispatch_by_platform

_LAX_SCATTER = {
    "add": jax.lax.scatter_add, "mul": jax.lax.scatter_mul, "min": jax.lax.scatter_min,
    "max": jax.lax.scatter_max, "replace": jax.lax.scatter,
}


def _run_rows(table: jax.Array, keys: jax.Array, updates: jax.Array, combiner: str,
              method: str) -> jax.Array:
    options = {"combiner": combiner, "method": method}
    return dispatch_by_platform(
        table, keys, updates,
        tpu=functools.partial(scatter_rows_tpu, **options),
        gpu=functools.partial(scatter_rows_gpu, **options),
    )


def _run_plan(operand: jax.Array, indices: jax.Array, updates: jax.Array,
              plan: ScatterPlan) -> jax.Array:
    table = operand_table(operand, plan)
    keys, rows = sorted_row_updates(row_ids(indices, plan), row_updates(updates, plan),
                                    plan.indices_are_sorted)
    loop = functools.partial(_run_rows, combiner=plan.combiner, method="loop")
    if plan.combiner != "add" or jnp.issubdtype(plan.dtype, jnp.integer):
        out = loop(table, keys, rows)
    else:
        # One-hot matmuls would spread inf/NaN (0 * inf) to other rows: such
        # updates take the (exact) loop path instead.
        matmul = functools.partial(_run_rows, combiner="add", method="matmul")
        out = jax.lax.cond(jnp.all(jnp.isfinite(rows)), matmul, loop, table, keys, rows)
    return result_from_table(out, plan)


def scatter(
    operand: jax.Array,
    indices: jax.Array,
    updates: jax.Array,
    dimension_numbers: jax.lax.ScatterDimensionNumbers,
    combiner: Any = "add",
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: Any = "drop",
) -> jax.Array:
    """Scatter ``updates`` into ``operand`` like ``jax.lax.scatter_<combiner>``.

    ``combiner`` is "add", "mul", "min", "max" or "replace" (or ``jax.lax.add``,
    ``jax.lax.mul``, ``jax.lax.min``, ``jax.lax.max``, the ``jnp`` and
    ``operator`` equivalents).  Update windows that would leave the operand are
    skipped (``mode="drop"``/``"fill"``/``"promise_in_bounds"``) or clamped
    (``mode="clip"``), like ``lax``.  The result is deterministic: updates are
    sorted by destination row (stable) and combined in that order, so for
    ``"replace"`` with duplicate indices the *last* update (in the flattened
    order of the update windows) wins.  ``indices_are_sorted`` only skips the
    sort after an on-device check confirms it; ``unique_indices`` is ignored.

    Calls the kernel does not cover (see ``explain("scatter", ...)``) run
    ``jax.lax.scatter*``; the reason is logged at debug level.
    """
    decision = plan_scatter(operand, indices, updates, dimension_numbers, combiner,
                            indices_are_sorted, unique_indices, mode)
    decision.log()
    if not decision.uses_kernel:
        name = canonical_combiner(combiner)
        if name is None:
            raise ValueError(decision.reason)
        return _LAX_SCATTER[name](operand, indices, updates, dimension_numbers,
                                  indices_are_sorted=indices_are_sorted,
                                  unique_indices=unique_indices, mode=mode)
    return _run_plan(operand, indices, updates, decision.plan)


register_planner(OP_NAME, plan_scatter)
