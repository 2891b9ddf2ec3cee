"""The program corpus: real programs exported from jax (StableHLO text, ``<name>.mlir``) with their inputs
(``<name>.npz``); their sources are :mod:`conformance.programs.sources`. ``python -m conformance check-program
conformance/programs/mlp.mlir --backend jax --inputs conformance/programs/mlp.npz`` checks one;
``python -m conformance.programs`` writes them again (after a jax upgrade, or a new program)."""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def names() -> list[str]:
    """The corpus's programs, by name."""
    return sorted(p.stem for p in FOLDER.glob("*.mlir"))


def paths(name: str) -> tuple[Path, Path]:
    """The program's StableHLO and its inputs."""
    return FOLDER / f"{name}.mlir", FOLDER / f"{name}.npz"
