"""Window geometry shared by reduce_window and select_and_scatter_add.

Both ops are canonicalized to one layout.  Leading dimensions that no window
touches (size-1 window, stride 1, no padding or dilation) collapse into ``B``,
trailing ones into ``C`` (the lanes), and the dimensions in between are the
*middle* dimensions.  The padded operand is then reshaped, for free, into the
*phase layout*::

    (B, Q_1, S_1, ..., Q_{M-1}, S_{M-1}, Q_M, S_M * C)

where a padded middle dimension of ``Q * S`` elements (``S`` its stride) is
split into quotient ``Q`` and phase ``S``.  Element ``j * S + k * R`` of
window ``j`` (tap ``k``, window dilation ``R``) is then at quotient
``j + (k * R) // S`` and phase ``(k * R) % S``: every tap of every window is a
*contiguous* slice ``[q, q + O)`` of the quotient axis at one fixed phase, so
the kernels never need strided memory accesses.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence

from pallas_kernels.toolkit.tiling import cdiv

MAX_TAPS = 1024
"""Windows with more taps than this fall back to XLA (code size)."""


@dataclasses.dataclass(frozen=True)
class MiddleDim:
    """One middle dimension, in padded coordinates."""

    size: int  # operand elements (before padding and base dilation)
    low: int  # padding below (may be negative)
    high: int  # padding above (may be negative)
    base_dilation: int
    window: int
    stride: int
    dilation: int
    padded: int  # size after padding and base dilation
    out: int  # number of windows
    quotient: int  # Q: padded to quotient * stride elements

    @property
    def extra_high(self) -> int:
        """Padding added above so that the axis is exactly ``Q * S`` long."""
        return self.quotient * self.stride - self.padded

    def tap(self, k: int) -> tuple[int, int]:
        """(quotient offset, phase) of tap ``k``."""
        return divmod(k * self.dilation, self.stride)

    def in_operand(self, j: int, k: int) -> bool:
        """Whether tap ``k`` of window ``j`` reads an operand element."""
        position = j * self.stride + k * self.dilation - self.low
        return (0 <= position < (self.size - 1) * self.base_dilation + 1
                and position % self.base_dilation == 0)


@dataclasses.dataclass(frozen=True)
class WindowGeometry:
    """Canonical form of a windowed op (see the module docstring)."""

    operand_shape: tuple[int, ...]
    first_middle: int  # index of the first middle dimension of the operand
    batch: int  # B
    lanes: int  # C
    middle: tuple[MiddleDim, ...]

    @property
    def out_shape(self) -> tuple[int, ...]:
        """Result shape in the operand's rank."""
        lead = self.operand_shape[: self.first_middle]
        trail = self.operand_shape[self.first_middle + len(self.middle):]
        return (*lead, *(m.out for m in self.middle), *trail)

    @property
    def canonical_out_shape(self) -> tuple[int, ...]:
        return (self.batch, *(m.out for m in self.middle), self.lanes)

    @property
    def phase_shape(self) -> tuple[int, ...]:
        """Shape of the operand in the phase layout."""
        dims: list[int] = [self.batch]
        for m in self.middle[:-1]:
            dims += [m.quotient, m.stride]
        last = self.middle[-1]
        return (*dims, last.quotient, last.stride * self.lanes)

    @property
    def padded_shape(self) -> tuple[int, ...]:
        """Operand shape after padding, base dilation and the extra high padding."""
        lead = self.operand_shape[: self.first_middle]
        trail = self.operand_shape[self.first_middle + len(self.middle):]
        return (*lead, *(m.quotient * m.stride for m in self.middle), *trail)

    def padding_config(self) -> list[tuple[int, int, int]]:
        """``lax.pad`` configuration producing :attr:`padded_shape`."""
        rank = len(self.operand_shape)
        config = [(0, 0, 0)] * rank
        for i, m in enumerate(self.middle):
            config[self.first_middle + i] = (
                m.low, m.high + m.extra_high, m.base_dilation - 1)
        return config

    def window_offsets(self) -> list[tuple[int, ...]]:
        """Per tap, in row-major window order: the offset inside the window."""
        return list(itertools.product(*(range(m.window) for m in self.middle)))

    def taps(self) -> list[tuple[tuple[int, int], ...]]:
        """Per tap (row-major window order): ((quotient offset, phase), ...)."""
        return [tuple(m.tap(k) for m, k in zip(self.middle, ks))
                for ks in self.window_offsets()]

    @property
    def num_taps(self) -> int:
        return math.prod(m.window for m in self.middle)

    @property
    def has_holes(self) -> bool:
        """Whether some tap may read padding or a base-dilation hole."""
        return any(m.low > 0 or m.high > 0 or m.base_dilation > 1
                   for m in self.middle)


def _is_free(size_window_stride: tuple[int, ...]) -> bool:
    window, stride, low, high, base, dilation = size_window_stride
    return (window, stride, low, high, base, dilation) == (1, 1, 0, 0, 1, 1)


def make_geometry(
    operand_shape: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    base_dilation: Sequence[int],
    window_dilation: Sequence[int],
) -> WindowGeometry | str:
    """The canonical geometry, or the reason the kernel cannot take it."""
    shape = tuple(int(d) for d in operand_shape)
    rank = len(shape)
    params = [window_dimensions, window_strides, padding, base_dilation, window_dilation]
    if any(len(p) != rank for p in params):
        return "window parameters do not match the operand rank"
    if any(int(w) < 1 for w in window_dimensions) or any(
            int(v) < 1 for v in (*window_strides, *base_dilation, *window_dilation)):
        return "window sizes, strides and dilations must be positive"
    per_dim = [(int(w), int(s), int(lo), int(hi), int(b), int(r))
               for w, s, (lo, hi), b, r in zip(window_dimensions, window_strides,
                                               padding, base_dilation, window_dilation)]
    active = [i for i, d in enumerate(per_dim) if not _is_free(d)]
    if not active:
        return "trivial window (size 1, stride 1, no padding): XLA's elementwise op"
    first, last = active[0], active[-1]
    middle = []
    for i in range(first, last + 1):
        window, stride, low, high, base, dilation = per_dim[i]
        padded = low + high + (shape[i] - 1) * base + 1 if shape[i] else 0
        span = (window - 1) * dilation + 1
        out = (padded - span) // stride + 1 if padded >= span else 0
        if out == 0 or shape[i] == 0:
            return "an operand or the result is empty (a zero-size dimension)"
        middle.append(MiddleDim(
            size=shape[i], low=low, high=high, base_dilation=base, window=window,
            stride=stride, dilation=dilation, padded=padded, out=out,
            quotient=cdiv(padded, stride)))
    return WindowGeometry(
        operand_shape=shape,
        first_middle=first,
        batch=math.prod(shape[:first]),
        lanes=math.prod(shape[last + 1:]),
        middle=tuple(middle),
    )
