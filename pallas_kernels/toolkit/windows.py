"""Sliding windows over a 2-D grid as shifted rows of a flattened input.

Used by kernels that slide a (dilated, strided) window over a padded,
channels-last input ``[B, Hp, Wp, C]`` (convolution; reduce_window can use the
same layout).  No im2col: the input is only rearranged, never replicated.

* Stride ``s`` is removed by a *phase split* (``s * s`` phases in 2-D): input row ``r`` lives in phase
  ``r % s`` at row ``r // s``, so window tap ``k`` (dilation ``d``) of output
  row ``o`` reads phase ``(k*d) % s`` at row ``o + (k*d) // s`` — a stride-1
  access.  Stride 1 has a single phase and needs no rearrangement.
* Each phase ``[Hq, Wq]`` is flattened to rows ``y*Wq + x``.  Output pixel
  ``(oy, ox)`` becomes flat output row ``q = oy*Wq + ox`` and tap ``(ky, kx)``
  reads flat phase row ``q + offset`` with a *static* ``offset``.  A kernel
  computing ``M`` consecutive output rows therefore needs one contiguous input
  window of ``M + max_offset`` rows, and each tap is a shifted slice of it.
* Output columns ``ox >= Wo`` of the ``Ho x Wq`` flat grid are junk (they wrap
  into the next row) and are cropped by :func:`unflatten_output`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape


@dataclasses.dataclass(frozen=True)
class FlatWindows:
    """Window geometry on the flattened phase layout.

    Attributes:
      out_spatial: ``(Ho, Wo)`` output size.
      phase_spatial: ``(Hq, Wq)`` size of one phase; ``Wq`` is the flat row pitch.
      strides: ``(sh, sw)``.
      window: ``(KH, KW)``; dilation: ``(dh, dw)`` window dilation.
      phases: all ``(row phase, column phase)`` pairs, row-major (index
        ``a * sw + b``); with stride 1 just ``(0, 0)``.
      taps: per window position (row-major over ``(ky, kx)``), the index into
        ``phases`` and the static flat row offset.
    """

    out_spatial: tuple[int, int]
    phase_spatial: tuple[int, int]
    strides: tuple[int, int]
    window: tuple[int, int]
    dilation: tuple[int, int]
    phases: tuple[tuple[int, int], ...]
    taps: tuple[tuple[int, int], ...]

    def tap_location(self, tap: Any) -> tuple[Any, Any]:
        """``(phase index, flat offset)`` of tap number ``tap``; works on traced ints."""
        (sh, sw), (dh, dw), wq = self.strides, self.dilation, self.phase_spatial[1]
        kw = self.window[1]
        row, column = _div(tap, kw) * dh, _mod(tap, kw) * dw
        return _mod(row, sh) * sw + _mod(column, sw), _div(row, sh) * wq + _div(column, sw)

    @property
    def out_rows(self) -> int:
        """Rows of the flat output grid, ``Ho * Wq`` (junk columns included)."""
        return self.out_spatial[0] * self.phase_spatial[1]

    @property
    def max_offset(self) -> int:
        return max(offset for _, offset in self.taps)

    def input_rows(self, out_rows: int) -> int:
        """Flat phase rows that ``out_rows`` (padded) output rows read."""
        return out_rows + self.max_offset


def _div(value: Any, divisor: int) -> Any:
    """``value // divisor`` for ``value >= 0`` (``lax.div``: Triton-friendly)."""
    if divisor == 1:
        return value
    return value // divisor if isinstance(value, int) else jax.lax.div(value, divisor)


def _mod(value: Any, divisor: int) -> Any:
    """``value % divisor`` for ``value >= 0`` (``lax.rem``: Triton-friendly)."""
    if divisor == 1:
        return 0
    return value % divisor if isinstance(value, int) else jax.lax.rem(value, divisor)


def flat_windows(
    padded_spatial: Sequence[int],
    window: Sequence[int],
    strides: Sequence[int],
    dilation: Sequence[int],
) -> FlatWindows:
    """Geometry of a ``window`` slid over an already padded ``[Hp, Wp]`` grid."""
    (hp, wp), (kh, kw), (sh, sw), (dh, dw) = padded_spatial, window, strides, dilation
    ho = (hp - (kh - 1) * dh - 1) // sh + 1
    wo = (wp - (kw - 1) * dw - 1) // sw + 1
    if ho <= 0 or wo <= 0:
        raise ValueError("the window is larger than the padded input")
    reach_h, reach_w = (kh - 1) * dh // sh, (kw - 1) * dw // sw
    hq, wq = ho + reach_h, wo + reach_w
    phases = tuple((a, b) for a in range(sh) for b in range(sw))
    windows = FlatWindows((ho, wo), (hq, wq), (sh, sw), (kh, kw), (dh, dw), phases, ())
    taps = tuple(windows.tap_location(t) for t in range(kh * kw))
    return dataclasses.replace(windows, taps=taps)


def pad_and_dilate(
    x: jax.Array,
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int] = (1, 1),
) -> jax.Array:
    """Zero-pad (negative pads crop) and base-dilate the spatial axes of ``[B, H, W, C]``."""
    config = [(0, 0, 0)]
    config += [(lo, hi, d - 1) for (lo, hi), d in zip(padding, base_dilation)]
    config.append((0, 0, 0))
    if all(c == (0, 0, 0) for c in config):
        return x
    return jax.lax.pad(x, jnp.zeros((), x.dtype), config)


def to_flat_phases(x: jax.Array, windows: FlatWindows, rows: int) -> jax.Array:
    """``[B, Hp, Wp, C]`` (padded) -> ``[B, P, rows, C]`` flat phases, zero-filled."""
    batch, channels = x.shape[0], x.shape[-1]
    (hq, wq), (sh, sw) = windows.phase_spatial, windows.strides
    # Rows/columns past hq*sh / wq*sw are never read by a valid output.
    x = pad_to_shape(crop_to_shape(x, (batch, min(x.shape[1], hq * sh),
                                       min(x.shape[2], wq * sw), channels)),
                     (batch, hq * sh, wq * sw, channels))
    if (sh, sw) == (1, 1):
        flat = x.reshape(batch, 1, hq * wq, channels)
    else:
        split = x.reshape(batch, hq, sh, wq, sw, channels)
        flat = jnp.transpose(split, (0, 2, 4, 1, 3, 5))
        flat = flat.reshape(batch, sh * sw, hq * wq, channels)
    return pad_to_shape(flat, (batch, flat.shape[1], max(rows, hq * wq), channels))


def unflatten_output(y: jax.Array, windows: FlatWindows) -> jax.Array:
    """``[B, rows >= Ho*Wq, C]`` flat output -> ``[B, Ho, Wo, C]`` (junk cropped)."""
    (ho, wo), wq = windows.out_spatial, windows.phase_spatial[1]
    batch, channels = y.shape[0], y.shape[-1]
    y = y[:, : ho * wq].reshape(batch, ho, wq, channels)
    return y[:, :, :wo]
