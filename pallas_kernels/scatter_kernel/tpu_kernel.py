"""Row scatter for TPU (Mosaic), deterministic and without atomics.

Input: the ``[V, D]`` table, row ids sorted ascending (``DROPPED`` last) and the
update rows in that order.  The table is split into row tiles of ``tr`` rows;
tile ``t``'s updates are the contiguous *run* ``[start_t, end_t)`` of the sorted
rows.  The runs are cut into aligned chunks of ``c`` update rows, and the
kernel walks a flat list of *work items* ``(tile, chunk, lo, hi)`` — one per
chunk a run touches, tiles without updates skipped — whose arrays are
scalar-prefetched (``PrefetchScalarGridSpec``) and drive the block index maps,
so each tile only reads its own run.  The list has a static length
``chunks + min(tiles, rows)``; spare items repeat the last tile and do nothing.

Grid ``(D / td, work items)``.  A tile's items are consecutive, so its
output block stays resident in VMEM: the first item loads the operand block
into an f32 (int32) accumulator, the last stores it.  The output aliases the
operand, so untouched tiles are never read or written by the kernel.

* ``method="matmul"`` (float add): ``acc += one_hot[tr, c] @ updates[c, td]``
  on the MXU, ``one_hot[r, k] = (row_id[k] == tile_row0 + r)``; f32 updates are
  split into three bf16 parts (hi + mid + lo == the f32 value), each product
  exact, so the sums are f32-accurate in three bf16 passes.
* ``method="loop"`` (everything else): a scalar loop over ``[lo, hi)`` that
  combines each update row into its accumulator row, in sorted order (so for
  ``replace`` the last update in the original order wins).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from pallas_kernels.scatter_kernel.plan import COMBINE
from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape
from pallas_kernels.toolkit.platforms import tpu_compiler_params
from pallas_kernels.toolkit.tiling import TPU_LANES, cdiv, round_up, tpu_sublanes


@dataclasses.dataclass(frozen=True)
class TpuScatterBlocks:
    tr: int  # table rows per tile
    td: int  # table columns per block
    c: int  # update rows per chunk


def choose_tpu_blocks(rows: int, columns: int, dtype: np.dtype) -> TpuScatterBlocks:
    """128-row tiles, 128-update chunks, up to 512 lanes of columns."""
    granule = tpu_sublanes(dtype)
    tr = 128 if rows >= 128 else round_up(rows, granule)
    if columns % TPU_LANES:
        td = columns  # whole (narrow) rows: a full-dimension block
    else:
        td = max(w for w in (512, 384, 256, 128) if columns % w == 0)
    return TpuScatterBlocks(tr=tr, td=td, c=128)


def work_items(keys: jax.Array, tiles: int, tr: int, c: int) -> tuple[jax.Array, ...]:
    """``(tile, chunk, lo, hi, first, last)`` int32 arrays of the work list."""
    chunks = keys.shape[0] // c
    bounds = jnp.searchsorted(keys, jnp.arange(tiles + 1, dtype=jnp.int32) * tr,
                              side="left").astype(jnp.int32)
    start, end = bounds[:-1], bounds[1:]
    first_chunk = start // c
    count = jnp.where(end > start, (end - 1) // c - first_chunk + 1, 0)
    ends = jnp.cumsum(count)
    total = ends[-1]
    size = chunks + min(tiles, keys.shape[0])
    w = jnp.arange(size, dtype=jnp.int32)
    real = w < total
    last_real = jnp.maximum(total - 1, 0)
    item = jnp.where(real, w, last_real)
    tile = jnp.minimum(jnp.searchsorted(ends, item, side="right"), tiles - 1).astype(jnp.int32)
    chunk = first_chunk[tile] + item - (ends[tile] - count[tile])
    chunk = jnp.clip(chunk, 0, chunks - 1).astype(jnp.int32)
    lo = jnp.where(real, jnp.maximum(start[tile], chunk * c), 0).astype(jnp.int32)
    hi = jnp.where(real, jnp.minimum(end[tile], chunk * c + c), 0).astype(jnp.int32)
    first = jnp.concatenate([jnp.ones((1,), bool), tile[1:] != tile[:-1]])
    last = jnp.concatenate([tile[1:] != tile[:-1], jnp.ones((1,), bool)])
    return tile, chunk, lo, hi, first.astype(jnp.int32), last.astype(jnp.int32)


def _split_bf16(x: jax.Array) -> tuple[jax.Array, ...]:
    """Three bf16 arrays whose f32 sum is exactly the f32 ``x``."""
    hi = x.astype(jnp.bfloat16)
    rest = x - hi.astype(jnp.float32)
    mid = rest.astype(jnp.bfloat16)
    lo = (rest - mid.astype(jnp.float32)).astype(jnp.bfloat16)
    return hi, mid, lo


def _matmul_step(keys_ref, upd_ref, acc_ref, row0):
    keys = keys_ref[...]  # (1, c)
    tr, c = acc_ref.shape[0], keys.shape[1]
    rows = row0 + jax.lax.broadcasted_iota(jnp.int32, (tr, c), 0)
    updates = upd_ref[...]
    parts = _split_bf16(updates) if updates.dtype == jnp.float32 else (updates,)
    one_hot = (rows == keys).astype(parts[0].dtype)
    for part in parts:
        acc_ref[...] += jnp.dot(one_hot, part, preferred_element_type=jnp.float32)


def _loop_step(keys_ref, upd_ref, acc_ref, row0, base, lo, hi, combine):
    def body(i, carry):
        local = i - base
        row = keys_ref[0, local] - row0
        update = upd_ref[pl.ds(local, 1), :].astype(acc_ref.dtype)
        acc_ref[pl.ds(row, 1), :] = combine(acc_ref[pl.ds(row, 1), :], update)
        return carry

    jax.lax.fori_loop(lo, hi, body, 0)


def _kernel(tile_ref, chunk_ref, lo_ref, hi_ref, first_ref, last_ref,
            keys_ref, upd_ref, operand_ref, out_ref, acc_ref, *, method, combine, tr, c):
    w = pl.program_id(1)
    row0 = tile_ref[w] * tr
    lo, hi = lo_ref[w], hi_ref[w]

    @pl.when(first_ref[w] == 1)
    def _load():
        acc_ref[...] = operand_ref[...].astype(acc_ref.dtype)

    if method == "matmul":
        @pl.when(hi > lo)
        def _accumulate():
            _matmul_step(keys_ref, upd_ref, acc_ref, row0)
    else:
        _loop_step(keys_ref, upd_ref, acc_ref, row0, chunk_ref[w] * c, lo, hi, combine)

    @pl.when(last_ref[w] == 1)
    def _store():
        out_ref[...] = acc_ref[...].astype(out_ref.dtype)


def _updates_dtype(dtype: np.dtype, method: str) -> Any:
    """Update rows enter the kernel as bf16 (add) or as the accumulator type."""
    if method == "matmul":
        return jnp.bfloat16 if dtype == jnp.bfloat16 else jnp.float32
    return jnp.int32 if jnp.issubdtype(dtype, jnp.integer) else jnp.float32


def scatter_rows_tpu(
    table: jax.Array,
    keys: jax.Array,
    updates: jax.Array,
    *,
    combiner: str,
    method: str,
    interpret: Any = False,
    blocks: TpuScatterBlocks | None = None,
) -> jax.Array:
    """``table[keys[k]] = combine(table[keys[k]], updates[k])`` for sorted ``keys``."""
    rows, columns = table.shape
    dtype = np.dtype(table.dtype)
    blocks = blocks or choose_tpu_blocks(rows, columns, dtype)
    tr, td, c = blocks.tr, blocks.td, blocks.c
    # Whole tiles only (TPU interpret mode mishandles ragged aliased blocks).
    padded_rows = round_up(rows, tr)
    table_p = pad_to_shape(table, (padded_rows, columns))
    tiles = cdiv(padded_rows, tr)
    size = round_up(keys.shape[0], c)
    keys = jnp.pad(keys, (0, size - keys.shape[0]), constant_values=np.iinfo(np.int32).max)
    updates = pad_to_shape(updates.astype(_updates_dtype(dtype, method)), (size, columns))
    items = work_items(keys, tiles, tr, c)
    accumulator = jnp.int32 if jnp.issubdtype(dtype, jnp.integer) else jnp.float32
    # (chunks, 1, c): the block's last two dims (1, c) are legal in VMEM and SMEM.
    keys_in = keys.reshape(size // c, 1, c)
    keys_spec = pl.BlockSpec((None, 1, c), lambda j, w, t, k, *_: (k[w], 0, 0),
                             memory_space=None if method == "matmul" else pltpu.SMEM)
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=len(items),
        grid=(cdiv(columns, td), items[0].shape[0]),
        in_specs=[
            keys_spec,
            pl.BlockSpec((c, td), lambda j, w, t, k, *_: (k[w], j)),
            pl.BlockSpec((tr, td), lambda j, w, t, *_: (t[w], j)),
        ],
        out_specs=pl.BlockSpec((tr, td), lambda j, w, t, *_: (t[w], j)),
        scratch_shapes=[pltpu.VMEM((tr, td), accumulator)],
    )
    kernel = functools.partial(_kernel, method=method, combine=COMBINE[combiner], tr=tr, c=c)
    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(table_p.shape, dtype),
        grid_spec=grid_spec,
        input_output_aliases={len(items) + 2: 0},
        compiler_params=tpu_compiler_params(("parallel", "arbitrary")),
        interpret=interpret,
        name="pallas_scatter_tpu",
    )(*items, keys_in, updates, table_p)
    return crop_to_shape(out, (rows, columns))
