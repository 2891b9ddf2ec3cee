"""Small value types of the ``xla_client`` surface used as op attributes."""

from __future__ import annotations

import dataclasses
import enum


class ResultAccuracyMode(enum.Enum):
    DEFAULT = 0
    HIGHEST = 1
    TOLERANCE = 2


@dataclasses.dataclass(frozen=True)
class ResultAccuracy:
    """The optional ``result_accuracy`` of transcendental unary ops.

    ``mode`` DEFAULT or HIGHEST, or a tolerance (``atol``, ``rtol``, ``ulps``) the result must meet.
    """

    mode: ResultAccuracyMode = ResultAccuracyMode.DEFAULT
    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0

    def __str__(self) -> str:
        if self.mode == ResultAccuracyMode.TOLERANCE:
            return f"{{tolerance={{atol={self.atol},rtol={self.rtol},ulps={self.ulps}}}}}"
        return f"{{mode={self.mode.name.lower()}}}"


class ComparisonDirection(enum.Enum):
    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(enum.Enum):
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


@dataclasses.dataclass(frozen=True)
class DotDimensionNumbers:
    """Contracting and batch dimensions of each side of a DotGeneral."""

    lhs_contracting_dimensions: tuple[int, ...] = ()
    rhs_contracting_dimensions: tuple[int, ...] = ()
    lhs_batch_dimensions: tuple[int, ...] = ()
    rhs_batch_dimensions: tuple[int, ...] = ()

    def as_lax(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]:
        """``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`` as jax.lax takes it."""
        return ((self.lhs_contracting_dimensions, self.rhs_contracting_dimensions),
                (self.lhs_batch_dimensions, self.rhs_batch_dimensions))

    def __str__(self) -> str:
        def dims(d: tuple[int, ...]) -> str:
            return "{" + ",".join(map(str, d)) + "}"
        return (f"lhs_batch_dims={dims(self.lhs_batch_dimensions)}, lhs_contracting_dims="
                f"{dims(self.lhs_contracting_dimensions)}, rhs_batch_dims={dims(self.rhs_batch_dimensions)}, "
                f"rhs_contracting_dims={dims(self.rhs_contracting_dimensions)}")


def make_dot_dimension_numbers(dimension_numbers: object) -> DotDimensionNumbers:
    """From ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``, as xla_client took it."""
    from backend.attributes import dot_dimension_numbers
    return dot_dimension_numbers(dimension_numbers)


class Precision(enum.Enum):
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


@dataclasses.dataclass(frozen=True)
class PrecisionConfig:
    """One precision per operand (``operand_precision``), as in xla_client."""

    operand_precision: tuple[Precision, ...] = ()

    Precision = Precision

    def __str__(self) -> str:
        return "{" + ",".join(p.name.lower() for p in self.operand_precision) + "}"
