"""The ``pallas`` backend object."""

from __future__ import annotations

from backend.jax_backend import LOWERINGS
from backend.jax_backend.executor import JaxBackend
from backend.pallas_backend import PALLAS_LOWERINGS, OverlayTable


class PallasBackend(JaxBackend):
    """The jax backend with the Pallas kernel lowerings preferred (interpret mode on the CPU)."""

    def __init__(self) -> None:
        super().__init__(table=OverlayTable(PALLAS_LOWERINGS, LOWERINGS), name="pallas")
