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
