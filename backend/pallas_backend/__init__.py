"""The ``pallas`` backend: the jax backend with the Pallas kernels swapped in.

Kernel lowerings live in family modules of this package and register with
``@pallas_lowering("Op")``; every other op uses the jax lowering. A kernel lowering calls the
``pallas_kernels`` function, which runs the kernel or falls back to ``jax.lax`` with a logged
reason (``pallas_kernels.explain`` gives the same decision without running anything). The backend object is
:class:`backend.pallas_backend.executor.PallasBackend`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backend.registry import Registry

if TYPE_CHECKING:
    from backend.jax_backend import Lowering

PALLAS_LOWERINGS: Registry[Lowering] = Registry("pallas lowering", __name__)
pallas_lowering = PALLAS_LOWERINGS.register


class OverlayTable:
    """A lowering table that prefers ``top`` and falls back to ``base``."""

    def __init__(self, top: Registry[Lowering], base: Registry[Lowering]) -> None:
        self.top = top
        self.base = base

    def get(self, name: str) -> Lowering | None:
        return self.top.get(name) or self.base.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self.top or name in self.base
