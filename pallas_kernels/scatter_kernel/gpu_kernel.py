"""Row scatter for NVIDIA GPUs (Pallas Triton), deterministic, no atomics.

Same input as the TPU variant (sorted row ids, update rows in that order).
``row_start[r]`` (a ``searchsorted`` over the sorted ids) is where row ``r``'s
run of updates begins.  Grid ``(row tiles, column blocks)``: each program owns a
``tr x td`` tile of the table; the output aliases the operand, so a tile with
no updates returns at once.

* ``method="matmul"`` (float add): the tile accumulates
  ``one_hot[tr, c] @ updates[c, td]`` (tensor cores, IEEE f32 for f32) over
  its run in chunks of ``c`` update rows, then stores once.
* ``method="loop"``: a segmented reduction per row of the tile: the row's run
  is loaded ``c`` update rows at a time (masked with the combiner's identity)
  and reduced along the update axis; ``mul`` goes one row at a time and
  ``replace`` keeps the row's last update (the last in the original order).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

from pallas_kernels.scatter_kernel.plan import COMBINE
from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape
from pallas_kernels.toolkit.platforms import triton_compiler_params
from pallas_kernels.toolkit.tiling import (
    GPU_MIN_DOT_DIM,
    cdiv,
    fit_power_of_two_block,
    round_up,
)


@dataclasses.dataclass(frozen=True)
class GpuScatterBlocks:
    tr: int  # table rows per program (power of two >= 16)
    td: int  # table columns per program (power of two >= 16)
    c: int  # update rows per step (power of two >= 16)
    num_warps: int = 4


def choose_gpu_blocks(rows: int, columns: int) -> GpuScatterBlocks:
    """Small tiles (many programs: long runs are walked sequentially per tile)."""
    return GpuScatterBlocks(
        tr=fit_power_of_two_block(rows, 32, GPU_MIN_DOT_DIM),
        td=fit_power_of_two_block(columns, 128, GPU_MIN_DOT_DIM),
        c=32,
    )


def _identity(combiner: str, dtype: Any) -> Any:
    if combiner in ("add", "replace"):
        return 0
    if combiner == "mul":
        return 1
    info = jnp.iinfo(dtype) if jnp.issubdtype(dtype, jnp.integer) else None
    if combiner == "min":
        return info.max if info else jnp.inf
    return info.min if info else -jnp.inf


_REDUCE = {"add": jnp.sum, "min": jnp.min, "max": jnp.max}


def _matmul_tile(row_start_ref, keys_ref, upd_ref, operand_ref, out_ref, *, c, row0):
    tr, td = out_ref.shape
    start, end = row_start_ref[row0], row_start_ref[row0 + tr]
    rows = row0 + jnp.arange(tr, dtype=jnp.int32)
    column0 = pl.program_id(1) * td
    precision = jax.lax.Precision.HIGHEST  # IEEE f32, not tf32

    def step(i, acc):
        first = start + i * c
        valid = first + jnp.arange(c, dtype=jnp.int32) < end
        keys = plgpu.load(keys_ref.at[pl.ds(first, c)], mask=valid, other=-1)
        updates = upd_ref[pl.ds(first, c), pl.ds(column0, td)]
        one_hot = (rows[:, None] == keys[None, :]).astype(updates.dtype)
        return acc + plgpu.dot(one_hot, updates, precision=precision)

    @pl.when(end > start)
    def _():
        acc = operand_ref[...].astype(jnp.float32)
        acc = jax.lax.fori_loop(0, cdiv(end - start, c), step, acc)
        out_ref[...] = acc.astype(out_ref.dtype)


def _loop_tile(row_start_ref, keys_ref, upd_ref, operand_ref, out_ref, *, c, row0,
               combiner):
    del keys_ref  # rows are found through row_start
    tr, td = out_ref.shape
    column0 = pl.program_id(1) * td
    accumulator = jnp.int32 if jnp.issubdtype(out_ref.dtype, jnp.integer) else jnp.float32
    identity = _identity(combiner, accumulator)
    combine = COMBINE[combiner]

    def reduce_run(start, end, current):
        if combiner == "replace":
            return upd_ref[end - 1, pl.ds(column0, td)].astype(accumulator)
        if combiner == "mul":
            def one(k, value):
                return value * upd_ref[k, pl.ds(column0, td)].astype(accumulator)
            return jax.lax.fori_loop(start, end, one, current)

        def chunk(i, value):
            first = start + i * c
            valid = first + jnp.arange(c, dtype=jnp.int32) < end
            block = plgpu.load(upd_ref.at[pl.ds(first, c), pl.ds(column0, td)],
                               mask=valid[:, None], other=identity)
            # .astype: under x64, jnp.sum promotes int32 to int64 and the loop carry would change type
            return combine(value, _REDUCE[combiner](block.astype(accumulator), axis=0).astype(accumulator))
        return jax.lax.fori_loop(0, cdiv(end - start, c), chunk, current)

    def row(r, carry):
        start, end = row_start_ref[row0 + r], row_start_ref[row0 + r + 1]

        @pl.when(end > start)
        def _():
            current = operand_ref[r, :].astype(accumulator)
            out_ref[r, :] = reduce_run(start, end, current).astype(out_ref.dtype)
        return carry

    @pl.when(row_start_ref[row0 + tr] > row_start_ref[row0])
    def _():
        jax.lax.fori_loop(0, tr, row, 0)


def _kernel(row_start_ref, keys_ref, upd_ref, operand_ref, out_ref, *, method, combiner, c):
    row0 = pl.program_id(0) * out_ref.shape[0]
    if method == "matmul":
        _matmul_tile(row_start_ref, keys_ref, upd_ref, operand_ref, out_ref, c=c, row0=row0)
    else:
        _loop_tile(row_start_ref, keys_ref, upd_ref, operand_ref, out_ref, c=c, row0=row0,
                   combiner=combiner)


def scatter_rows_gpu(
    table: jax.Array,
    keys: jax.Array,
    updates: jax.Array,
    *,
    combiner: str,
    method: str,
    interpret: Any = False,
    blocks: GpuScatterBlocks | None = None,
) -> jax.Array:
    """``table[keys[k]] = combine(table[keys[k]], updates[k])`` for sorted ``keys``.

    ``keys`` must end with at least ``c`` ``DROPPED`` padding rows (see
    ``rows.sorted_row_updates``), so chunk reads never leave the arrays.
    """
    rows, columns = table.shape
    dtype = np.dtype(table.dtype)
    blocks = blocks or choose_gpu_blocks(rows, columns)
    tr, td, c = blocks.tr, blocks.td, blocks.c
    padded_columns = round_up(columns, td)
    padded_rows = round_up(rows, tr)
    # Pallas-Triton blocks must be whole: pad the table to full tiles.
    table_p = pad_to_shape(table, (padded_rows, padded_columns))
    updates = pad_to_shape(updates, (updates.shape[0], padded_columns))
    if method == "loop" and dtype == jnp.float16:
        updates = updates.astype(jnp.float32)
    row_start = jnp.searchsorted(
        keys, jnp.arange(padded_rows + 1, dtype=jnp.int32), side="left").astype(jnp.int32)
    kernel = functools.partial(_kernel, method=method, combiner=combiner, c=c)
    whole = pl.no_block_spec
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(table_p.shape, dtype),
        grid=(padded_rows // tr, padded_columns // td),
        in_specs=[whole, whole, whole, pl.BlockSpec((tr, td), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((tr, td), lambda i, j: (i, j)),
        input_output_aliases={3: 0},
        compiler_params=triton_compiler_params(blocks.num_warps, num_stages=1),
        interpret=interpret,
        name="pallas_scatter_gpu",
    )(row_start, keys, updates, table_p)
    return crop_to_shape(out, (rows, columns))
