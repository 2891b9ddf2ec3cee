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


class RandomAlgorithm(enum.Enum):
    """RngBitGenerator's algorithm: the backend's default, Threefry-2x32 or Philox-4x32 (xla_client's names)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2


class TriangularSolveOptions_Transpose(enum.Enum):  # noqa: N801 (xla_client's name)
    """TriangularSolve's ``transpose_a``: use a as it is, transposed, or conjugate-transposed."""

    TRANSPOSE_INVALID = 0
    NO_TRANSPOSE = 1
    TRANSPOSE = 2
    ADJOINT = 3


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


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """A RaggedDot's dimensions: the DotGeneral ones, lhs's ragged dimension (exactly one) and rhs's
    group dimension (one when the ragged dimension is a non-contracting one, none otherwise)."""

    dot_dimension_numbers: DotDimensionNumbers = DotDimensionNumbers()
    lhs_ragged_dimensions: tuple[int, ...] = ()
    rhs_group_dimensions: tuple[int, ...] = ()

    def __str__(self) -> str:
        def dims(d: tuple[int, ...]) -> str:
            return "{" + ",".join(map(str, d)) + "}"
        return (f"{self.dot_dimension_numbers}, lhs_ragged_dims={dims(self.lhs_ragged_dimensions)}, "
                f"rhs_group_dims={dims(self.rhs_group_dimensions)}")


class FftType(enum.IntEnum):
    """The transform of an Fft, with xla_client's values."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


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


@dataclasses.dataclass(frozen=True)
class ConvolutionDimensionNumbers:
    """Which dimensions of the input (lhs), kernel (rhs) and output are batch, feature and spatial."""

    input_batch_dimension: int
    input_feature_dimension: int
    input_spatial_dimensions: tuple[int, ...]
    kernel_input_feature_dimension: int
    kernel_output_feature_dimension: int
    kernel_spatial_dimensions: tuple[int, ...]
    output_batch_dimension: int
    output_feature_dimension: int
    output_spatial_dimensions: tuple[int, ...]

    def __str__(self) -> str:
        return ", ".join(f"{f.name}={getattr(self, f.name)}".replace(" ", "") for f in dataclasses.fields(self))


def conv_dimension_numbers_from_strings(lhs: str, rhs: str, out: str) -> ConvolutionDimensionNumbers:
    """From layout strings such as ``("NHWC", "HWIO", "NHWC")``: N batch, C feature, O/I the
    kernel's output/input feature, any other letter a spatial dimension (in the order of ``lhs``)."""
    spatial = [ch for ch in lhs if ch not in "NC"]
    if sorted(lhs) != sorted(out) or len(set(lhs)) != len(lhs) or len(rhs) != len(lhs) \
            or sorted(ch for ch in rhs if ch not in "OI") != sorted(spatial) or "O" not in rhs or "I" not in rhs:
        raise ValueError(f"inconsistent convolution layout strings {lhs!r}, {rhs!r}, {out!r}")
    return ConvolutionDimensionNumbers(
        lhs.index("N"), lhs.index("C"), tuple(lhs.index(s) for s in spatial),
        rhs.index("I"), rhs.index("O"), tuple(rhs.index(s) for s in spatial),
        out.index("N"), out.index("C"), tuple(out.index(s) for s in spatial))


def default_conv_dimension_numbers(num_spatial_dimensions: int) -> ConvolutionDimensionNumbers:
    """XLA's default: input and output (batch, feature, spatial...), kernel (out, in, spatial...)."""
    spatial = tuple(range(2, 2 + num_spatial_dimensions))
    return ConvolutionDimensionNumbers(0, 1, spatial, 1, 0, spatial, 0, 1, spatial)


def make_convolution_dimension_numbers(dimension_numbers: object, num_spatial_dimensions: int
                                       ) -> ConvolutionDimensionNumbers:
    """As xla_client: ``None`` (the default layout), three layout strings, or the numbers themselves."""
    if dimension_numbers is None:
        return default_conv_dimension_numbers(num_spatial_dimensions)
    from backend.attributes import convolution_dimension_numbers
    return convolution_dimension_numbers(dimension_numbers)


@dataclasses.dataclass(frozen=True)
class GatherDimensionNumbers:
    offset_dims: tuple[int, ...] = ()
    collapsed_slice_dims: tuple[int, ...] = ()
    start_index_map: tuple[int, ...] = ()
    index_vector_dim: int = 0
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class ScatterDimensionNumbers:
    update_window_dims: tuple[int, ...] = ()
    inserted_window_dims: tuple[int, ...] = ()
    scatter_dims_to_operand_dims: tuple[int, ...] = ()
    index_vector_dim: int = 0
    input_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


@dataclasses.dataclass
class PaddingConfigDimension:
    """The padding of one dimension: edges (may be negative, removing elements) and interior (>= 0)."""

    edge_padding_low: int = 0
    edge_padding_high: int = 0
    interior_padding: int = 0


@dataclasses.dataclass
class PaddingConfig:
    """One :class:`PaddingConfigDimension` per operand dimension, as xla_client's ``PaddingConfig``
    (mutable like it: ``config.dimensions.append(dim)``)."""

    dimensions: list[PaddingConfigDimension] = dataclasses.field(default_factory=list)

    def triples(self) -> tuple[tuple[int, int, int], ...]:
        """``((low, high, interior), ...)``, one per dimension."""
        return tuple((d.edge_padding_low, d.edge_padding_high, d.interior_padding) for d in self.dimensions)

    def __str__(self) -> str:
        """XLA's text form: ``low_high`` per dimension joined by ``x``, ``_interior`` when any is nonzero."""
        interior = any(d.interior_padding for d in self.dimensions)
        return "x".join(f"{lo}_{hi}" + (f"_{inner}" if interior else "") for lo, hi, inner in self.triples())


def make_padding_config(padding_config: object) -> PaddingConfig:
    """From a sequence of ``(low, high, interior)`` triples (or a PaddingConfig), as xla_client took it."""
    from backend.attributes import padding_config as normalize_padding_config
    return normalize_padding_config(padding_config)


class CustomCallSchedule(enum.IntEnum):
    """xla_client's CustomCallSchedule (a CustomCall's ``schedule``)."""
    SCHEDULE_NONE = 0
    SCHEDULE_LATEST = 1
    SCHEDULE_EARLIEST = 2


class CustomCallApiVersion(enum.IntEnum):
    """xla_client's CustomCallApiVersion (a CustomCall's ``api_version``; 0 is XLA's unspecified)."""
    API_VERSION_ORIGINAL = 1
    API_VERSION_STATUS_RETURNING = 2
    API_VERSION_STATUS_RETURNING_UNIFIED = 3
    API_VERSION_TYPED_FFI = 4
