"""Small value types of the ``xla_client`` surface used as op attributes.

They behave like the protocol buffers they stand for: default-constructible, mutable, repeated
fields as lists (``dn = DotDimensionNumbers(); dn.lhs_contracting_dimensions.append(1)``), equal
when their fields are. Nothing is checked when one is built or changed: the op builder checks the
value (``backend.hlo.attributes``; a malformed one is an OpError naming the field) and keeps a frozen
canonical copy, so later changes to the caller's object do not reach the op.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, TypeVar

_M = TypeVar("_M", bound="Message")


def _repeated() -> Any:
    """A repeated field: a list, empty by default."""
    return dataclasses.field(default_factory=list, metadata={"repeated": True})


def _frozen_value(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return tuple(_frozen_value(x) for x in v)
    return v.frozen() if isinstance(v, Message) else v


def _mutable_value(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return [_mutable_value(x) for x in v]
    return v.copy() if isinstance(v, Message) else v


class Message:
    """Base of the protocol-buffer-like value types (each a dataclass with ``eq=False``)."""

    _frozen = False

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.metadata.get("repeated") and isinstance(getattr(self, f.name), tuple):
                object.__setattr__(self, f.name, list(getattr(self, f.name)))

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"this {type(self).__name__} is an op's frozen canonical value; change a copy() of it")
        object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(_frozen_value(getattr(self, f.name)) for f in dataclasses.fields(self))  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def frozen(self: _M) -> _M:
        """A frozen copy: repeated fields as tuples, no assignment (the form ops keep)."""
        if self._frozen:
            return self
        out = dataclasses.replace(self)  # type: ignore[type-var]
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            object.__setattr__(out, f.name, _frozen_value(getattr(self, f.name)))
        object.__setattr__(out, "_frozen", True)
        return out

    def copy(self: _M) -> _M:
        """A mutable copy (repeated fields as new lists)."""
        out = dataclasses.replace(self)  # type: ignore[type-var]
        object.__setattr__(out, "_frozen", False)
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            object.__setattr__(out, f.name, _mutable_value(getattr(self, f.name)))
        return out

    def CopyFrom(self, other: Message) -> None:  # noqa: N802 (protocol buffers' name)
        """Overwrite every field with ``other``'s, as a protocol buffer's ``CopyFrom``."""
        if type(other) is not type(self):
            raise TypeError(f"CopyFrom expects a {type(self).__name__}, got {type(other).__name__}")
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            setattr(self, f.name, _mutable_value(getattr(other, f.name)))


class ResultAccuracyMode(enum.Enum):
    DEFAULT = 0
    HIGHEST = 1
    TOLERANCE = 2


@dataclasses.dataclass(eq=False)
class ResultAccuracy(Message):
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


@dataclasses.dataclass(eq=False)
class DotDimensionNumbers(Message):
    """Contracting and batch dimensions of each side of a DotGeneral."""

    lhs_contracting_dimensions: list[int] = _repeated()
    rhs_contracting_dimensions: list[int] = _repeated()
    lhs_batch_dimensions: list[int] = _repeated()
    rhs_batch_dimensions: list[int] = _repeated()

    def as_lax(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]:
        """``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`` as jax.lax takes it."""
        return ((tuple(self.lhs_contracting_dimensions), tuple(self.rhs_contracting_dimensions)),
                (tuple(self.lhs_batch_dimensions), tuple(self.rhs_batch_dimensions)))

    def __str__(self) -> str:
        def dims(d: Any) -> str:
            return "{" + ",".join(map(str, d)) + "}"
        return (f"lhs_batch_dims={dims(self.lhs_batch_dimensions)}, lhs_contracting_dims="
                f"{dims(self.lhs_contracting_dimensions)}, rhs_batch_dims={dims(self.rhs_batch_dimensions)}, "
                f"rhs_contracting_dims={dims(self.rhs_contracting_dimensions)}")


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


@dataclasses.dataclass(eq=False)
class PrecisionConfig(Message):
    """One precision per operand (``operand_precision``), as in xla_client."""

    operand_precision: list[Precision] = _repeated()

    Precision = Precision

    def __str__(self) -> str:
        return "{" + ",".join(p.name.lower() for p in self.operand_precision) + "}"


@dataclasses.dataclass(eq=False)
class ConvolutionDimensionNumbers(Message):
    """Which dimensions of the input (lhs), kernel (rhs) and output are batch, feature and spatial."""

    input_batch_dimension: int = 0
    input_feature_dimension: int = 0
    input_spatial_dimensions: list[int] = _repeated()
    kernel_input_feature_dimension: int = 0
    kernel_output_feature_dimension: int = 0
    kernel_spatial_dimensions: list[int] = _repeated()
    output_batch_dimension: int = 0
    output_feature_dimension: int = 0
    output_spatial_dimensions: list[int] = _repeated()

    def __str__(self) -> str:
        return ", ".join(f"{f.name}={_frozen_value(getattr(self, f.name))}".replace(" ", "")
                         for f in dataclasses.fields(self))


def conv_dimension_numbers_from_strings(lhs: str, rhs: str, out: str) -> ConvolutionDimensionNumbers:
    """From layout strings such as ``("NHWC", "HWIO", "NHWC")``: N batch, C feature, O/I the
    kernel's output/input feature, any other letter a spatial dimension. As xla_client: the spatial
    dimensions are in the order of the kernel string ``rhs``."""
    spatial = [ch for ch in rhs if ch not in "OI"]
    if sorted(lhs) != sorted(out) or len(set(lhs)) != len(lhs) or len(rhs) != len(lhs) or "N" not in lhs \
            or "C" not in lhs or sorted(ch for ch in lhs if ch not in "NC") != sorted(spatial) or "O" not in rhs \
            or "I" not in rhs:
        raise ValueError(f"inconsistent convolution layout strings {lhs!r}, {rhs!r}, {out!r}")
    return ConvolutionDimensionNumbers(
        lhs.index("N"), lhs.index("C"), [lhs.index(s) for s in spatial],
        rhs.index("I"), rhs.index("O"), [rhs.index(s) for s in spatial],
        out.index("N"), out.index("C"), [out.index(s) for s in spatial]).frozen()


def default_conv_dimension_numbers(num_spatial_dimensions: int) -> ConvolutionDimensionNumbers:
    """XLA's default: input and output (batch, feature, spatial...), kernel (out, in, spatial...)."""
    spatial = list(range(2, 2 + num_spatial_dimensions))
    return ConvolutionDimensionNumbers(0, 1, spatial, 1, 0, spatial, 0, 1, spatial).frozen()


@dataclasses.dataclass(eq=False)
class GatherDimensionNumbers(Message):
    offset_dims: list[int] = _repeated()
    collapsed_slice_dims: list[int] = _repeated()
    start_index_map: list[int] = _repeated()
    index_vector_dim: int = 0
    operand_batching_dims: list[int] = _repeated()
    start_indices_batching_dims: list[int] = _repeated()


@dataclasses.dataclass(eq=False)
class ScatterDimensionNumbers(Message):
    update_window_dims: list[int] = _repeated()
    inserted_window_dims: list[int] = _repeated()
    scatter_dims_to_operand_dims: list[int] = _repeated()
    index_vector_dim: int = 0
    input_batching_dims: list[int] = _repeated()
    scatter_indices_batching_dims: list[int] = _repeated()


@dataclasses.dataclass(eq=False)
class ReplicaGroup(Message):
    """The replicas that take part together in a collective (``replica_ids``)."""

    replica_ids: list[int] = _repeated()


@dataclasses.dataclass(eq=False)
class OpMetadata(Message):
    """Where an instruction came from (``XlaBuilder.set_op_metadata``), shown in the text form."""

    op_type: str = ""
    op_name: str = ""
    source_file: str = ""
    source_line: int = 0

    def __str__(self) -> str:
        parts = [f'{key}="{value}"' for key, value in (("op_type", self.op_type), ("op_name", self.op_name),
                                                        ("source_file", self.source_file)) if value]
        if self.source_line:
            parts.append(f"source_line={self.source_line}")
        return "{" + " ".join(parts) + "}"


class OpSharding_Type(enum.IntEnum):  # noqa: N801 (xla_client's name)
    REPLICATED = 0
    MAXIMAL = 1
    TUPLE = 2
    OTHER = 3
    MANUAL = 4


@dataclasses.dataclass(eq=False)
class OpSharding(Message):
    """How an op's result is laid out over devices (``XlaBuilder.set_sharding``), as xla_client's OpSharding:
    REPLICATED, MAXIMAL (on ``tile_assignment_devices[0]``), OTHER (tiles: ``tile_assignment_dimensions``
    over ``tile_assignment_devices``), TUPLE (``tuple_shardings``), MANUAL. Shown in the text form as HLO's
    ``sharding={...}``."""

    Type = OpSharding_Type

    type: int = OpSharding_Type.REPLICATED
    tile_assignment_dimensions: list[int] = _repeated()
    tile_assignment_devices: list[int] = _repeated()
    tuple_shardings: list[OpSharding] = _repeated()
    replicate_on_last_tile_dim: bool = False

    def __str__(self) -> str:
        return "{" + self._body() + "}"

    def _body(self) -> str:
        kind = OpSharding_Type(self.type)
        if kind == OpSharding_Type.REPLICATED:
            return "replicated"
        if kind == OpSharding_Type.MANUAL:
            return "manual"
        if kind == OpSharding_Type.MAXIMAL:
            return f"maximal device={self.tile_assignment_devices[0]}"
        if kind == OpSharding_Type.TUPLE:
            return ", ".join(s._body() for s in self.tuple_shardings)
        dims = ",".join(str(d) for d in self.tile_assignment_dimensions)
        devices = ",".join(str(d) for d in self.tile_assignment_devices)
        last = " last_tile_dim_replicate" if self.replicate_on_last_tile_dim else ""
        return f"devices=[{dims}]{devices}{last}"


@dataclasses.dataclass(eq=False)
class PaddingConfigDimension(Message):
    """The padding of one dimension: edges (may be negative, removing elements) and interior (>= 0)."""

    edge_padding_low: int = 0
    edge_padding_high: int = 0
    interior_padding: int = 0


@dataclasses.dataclass(eq=False)
class PaddingConfig(Message):
    """One :class:`PaddingConfigDimension` per operand dimension, as xla_client's ``PaddingConfig``
    (mutable like it: ``config.dimensions.append(dim)``)."""

    dimensions: list[PaddingConfigDimension] = _repeated()

    def triples(self) -> tuple[tuple[int, int, int], ...]:
        """``((low, high, interior), ...)``, one per dimension."""
        return tuple((d.edge_padding_low, d.edge_padding_high, d.interior_padding) for d in self.dimensions)

    def __str__(self) -> str:
        """XLA's text form: ``low_high`` per dimension joined by ``x``, ``_interior`` when any is nonzero."""
        interior = any(d.interior_padding for d in self.dimensions)
        return "x".join(f"{lo}_{hi}" + (f"_{inner}" if interior else "") for lo, hi, inner in self.triples())


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
