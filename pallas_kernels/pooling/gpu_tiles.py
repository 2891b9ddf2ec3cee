"""Power-of-two output tiles and program-id decoding for the Triton kernels."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp

from pallas_kernels.toolkit.tiling import cdiv, next_power_of_two

TILE_ELEMENTS = 1024
LANE_TILE = 128


@dataclasses.dataclass(frozen=True)
class GpuTiles:
    """Tile of the canonical ``(B, D_1, ..., D_M, C)`` array one program owns."""

    extents: tuple[int, ...]  # D_1..D_M, C (what the tiles cover)
    tiles: tuple[int, ...]  # power-of-two tile per extent

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(cdiv(e, t) for e, t in zip(self.extents, self.tiles))

    def programs(self, batch: int) -> int:
        return batch * math.prod(self.counts)

    def decode(self, pid: jax.Array) -> tuple[jax.Array, list[jax.Array]]:
        """Program id -> (batch index, first element of the tile per extent)."""
        starts: list[jax.Array] = []
        for count, tile in zip(reversed(self.counts), reversed(self.tiles)):
            starts.append((pid % count) * tile)
            pid = pid // count
        return pid, starts[::-1]

    def mask(self, starts: Sequence[jax.Array]) -> jax.Array | None:
        """In-range mask of the tile (None when every tile is full)."""
        mask = None
        for axis, (start, tile, extent) in enumerate(
                zip(starts, self.tiles, self.extents)):
            if extent % tile == 0:
                continue
            inside = jax.lax.broadcasted_iota(jnp.int32, self.tiles, axis) + start < extent
            mask = inside if mask is None else mask & inside
        return mask


def choose_gpu_tiles(extents: Sequence[int],
                     budget: int = TILE_ELEMENTS) -> GpuTiles:
    """Lane tile up to 128, then middle tiles from the innermost outwards."""
    *middle, lanes = (int(e) for e in extents)
    lane_tile = min(next_power_of_two(lanes), LANE_TILE)
    tiles = [lane_tile]
    used = lane_tile
    for extent in reversed(middle):
        tile = max(1, min(next_power_of_two(extent), budget // used))
        tiles.append(tile)
        used *= tile
    return GpuTiles(extents=(*middle, lanes), tiles=tuple(reversed(tiles)))
