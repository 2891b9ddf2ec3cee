"""Normalizers for attribute values, one per attribute type named in the specs.

Each takes the user's value and returns the canonical one, or raises ``TypeError``/``ValueError``
with a message; the op builder turns that into an :class:`~backend.errors.OpError`.
A type ending in ``?`` also accepts ``None``.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Collection, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from backend.hlo import etypes
from backend.hlo.attribute_types import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    CustomCallApiVersion,
    CustomCallSchedule,
    DotDimensionNumbers,
    FftType,
    GatherDimensionNumbers,
    OpMetadata,
    OpSharding,
    OpSharding_Type,
    PaddingConfig,
    PaddingConfigDimension,
    Precision,
    PrecisionConfig,
    RaggedDotDimensionNumbers,
    RandomAlgorithm,
    ReplicaGroup,
    ResultAccuracy,
    ResultAccuracyMode,
    ScatterDimensionNumbers,
    TriangularSolveOptions_Transpose,
    conv_dimension_numbers_from_strings,
)
from backend.hlo.etypes import PrimitiveType
from backend.hlo.graph import XlaComputation
from backend.hlo.literals import parse_literal, parse_shape
from backend.hlo.shape import MAX_TUPLE_DEPTH, Layout, Shape, tuple_depth


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"expected an integer, got {_short_repr(v)}")
    return int(v)


def _int_list(v: Any) -> tuple[int, ...]:
    if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__iter__"):
        raise TypeError(f"expected a sequence of integers, got {_short_repr(v)}")
    return tuple(_int(x) for x in v)


def _int_list_or_none(v: Any) -> tuple[int, ...]:
    """A sequence of integers; ``None`` (xla_client's default for ``broadcast_dimensions``) is the empty one."""
    return () if v is None else _int_list(v)


def _bool_list(v: Any) -> tuple[bool, ...]:
    return tuple(_bool(x) for x in _seq(v))


def _int_pairs(v: Any) -> tuple[tuple[int, int], ...]:
    out = []
    for p in _seq(v):
        pair = _int_list(p)
        if len(pair) != 2:
            raise TypeError(f"expected (low, high) pairs, got {p!r}")
        out.append((pair[0], pair[1]))
    return tuple(out)


def _seq(v: Any) -> list[Any]:
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError(f"expected a sequence, got {v!r}")
    return list(v)


def _bool(v: Any) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"expected a bool, got {v!r}")
    return bool(v)


def _float(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"expected a number, got {v!r}")
    return float(v)


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"expected a string, got {v!r}")
    return v


def element_type(v: Any) -> PrimitiveType:
    """An array element type: a PrimitiveType, a NumPy dtype (or type), or a name like ``'f32'``."""
    try:
        if isinstance(v, PrimitiveType):
            et = v
        elif isinstance(v, str):
            et = etypes.from_short_name(v)
        elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            et = PrimitiveType(int(v))
        elif v is None or isinstance(v, (bool, float, list, tuple, dict, bytes)):
            raise ValueError
        else:
            et = etypes.dtype_to_etype(v)
    except Exception:
        raise TypeError("expected an element type (PrimitiveType, dtype or name like 'f32'), "
                        f"got {_short_repr(v)}") from None
    if et not in etypes.ARRAY_TYPES:
        raise ValueError(f"expected an array element type, got {et.name}")
    return et


def _short_repr(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _shape(v: Any) -> Shape:
    if isinstance(v, Shape):
        return v
    if isinstance(v, str):
        return parse_shape(v)
    raise TypeError(f"expected a Shape, got {v!r}")


def _literal(v: Any) -> Any:
    if isinstance(v, tuple) and tuple_depth(v) > MAX_TUPLE_DEPTH:
        raise ValueError(f"tuples nest at most {MAX_TUPLE_DEPTH} deep; this literal nests deeper")
    return _checked_literal(v)


def _checked_literal(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(_checked_literal(x) for x in v)
    if isinstance(v, dict):
        return parse_literal(v)
    arr = np.asarray(v)
    if arr.dtype == np.float64 and not isinstance(v, np.ndarray) and not isinstance(v, np.floating):
        pass  # Python floats stay f64, as xla_client's Constant did
    etypes.dtype_to_etype(arr.dtype)  # raises ValueError for unsupported dtypes
    return arr


E = TypeVar("E", bound=enum.Enum)


def _enum_normalizer(enum_type: type[E], what: str, *, names: Sequence[str] | None = None,
                     numbers: Collection[int] = (), prefix: str = "", any_enum: bool = False,
                     exact_case: bool = False, shown: Callable[[Any], str] = _short_repr,
                     listing: str | None = None) -> Callable[[Any], E]:
    """A normalizer to a member of ``enum_type`` that has one of ``names`` (default: every member). It takes:

    - the member itself;
    - with ``any_enum``, a member of any enum with that name (another module's enum of the same names, as
      xla_client's or jax.lax's): it stands for its name from here on;
    - the name, in any case unless ``exact_case``; a name may leave out ``prefix`` (``philox`` for RNG_PHILOX);
    - an integer (not a bool) in ``numbers``, the member of that value.

    Anything else is a ``ValueError``: "expected {what} ({listing}), got {shown(v)}", ``listing`` by default the
    names separated by commas.
    """
    valid = tuple(enum_type.__members__) if names is None else tuple(names)
    choices = ", ".join(valid) if listing is None else listing

    def normalize(v: Any) -> E:
        if isinstance(v, enum_type) and v.name in valid:
            return v
        if any_enum and isinstance(v, enum.Enum):
            v = v.name
        if isinstance(v, str):
            name = v if exact_case else v.upper()
            name = name if name.startswith(prefix) else prefix + name
            if name in valid:
                return enum_type[name]
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and int(v) in numbers:
            return enum_type(int(v))
        raise ValueError(f"expected {what} ({choices}), got {shown(v)}")
    return normalize


def _values(enum_type: type[enum.Enum]) -> set[Any]:
    return {m.value for m in enum_type}


_direction = _enum_normalizer(ComparisonDirection, "a comparison direction", shown=repr)
_comparison_type = _enum_normalizer(ComparisonType, "a comparison type", shown=repr)
#: A ``RandomAlgorithm``, its name (``RNG_PHILOX``, or without the prefix: ``philox``) or its number.
_random_algorithm = _enum_normalizer(RandomAlgorithm, "a random algorithm", numbers=_values(RandomAlgorithm),
                                     prefix="RNG_", any_enum=True)
#: NO_TRANSPOSE, TRANSPOSE or ADJOINT: a member of any enum with those names (xla_client's), a name, or its value
#: 1-3 (TRANSPOSE_INVALID, 0, is refused).
_transpose = _enum_normalizer(TriangularSolveOptions_Transpose, "a TriangularSolveOptions_Transpose",
                              names=("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"), numbers=(1, 2, 3), any_enum=True)
#: An FftType, any enum member with one of its names (xla_client's), its name, or its value 0-3.
_fft_type = _enum_normalizer(FftType, "an FftType", numbers=_values(FftType), any_enum=True)
_accuracy_mode = _enum_normalizer(ResultAccuracyMode, "a result accuracy mode")
_precision = _enum_normalizer(Precision, "a precision", numbers=_values(Precision), shown=repr)


def _tolerance_bound(name: str, v: Any) -> float:
    x = _float(v)
    if not math.isfinite(x):  # the sign is the op's constraint (its shape rule checks it)
        raise ValueError(f"result_accuracy {name} must be a finite number, got {v!r}")
    return x


def _result_accuracy(v: Any) -> ResultAccuracy:
    """A ResultAccuracy, ``'DEFAULT'``/``'HIGHEST'``, ``{mode: ...}`` or ``{atol, rtol, ulps}``."""
    if isinstance(v, str):
        mode = _accuracy_mode(v)
        if mode == ResultAccuracyMode.TOLERANCE:
            raise ValueError("a TOLERANCE result_accuracy needs its atol, rtol and ulps: give {atol, rtol, ulps}")
        return ResultAccuracy(mode).frozen()
    if isinstance(v, ResultAccuracy):
        fields = {"mode": v.mode, "atol": v.atol, "rtol": v.rtol, "ulps": v.ulps}
    elif isinstance(v, dict):
        unknown = set(v) - {"mode", "atol", "rtol", "ulps"}
        if unknown:
            raise ValueError(f"unknown result_accuracy keys {sorted(map(str, unknown))}")
        fields = {"mode": ResultAccuracyMode.TOLERANCE if "mode" not in v else v["mode"], "atol": v.get("atol", 0.0),
                  "rtol": v.get("rtol", 0.0), "ulps": v.get("ulps", 0)}
    else:
        raise TypeError(f"expected a ResultAccuracy, 'DEFAULT', 'HIGHEST' or {{atol, rtol, ulps}}, got {_short_repr(v)}")
    mode = _accuracy_mode(fields["mode"])
    try:
        return ResultAccuracy(mode, _tolerance_bound("atol", fields["atol"]), _tolerance_bound("rtol", fields["rtol"]),
                              _int(fields["ulps"])).frozen()
    except TypeError as e:
        raise TypeError(f"ResultAccuracy: {e}") from None


def _computation(v: Any) -> Any:
    if not isinstance(v, XlaComputation):
        raise TypeError(f"expected an XlaComputation (from XlaBuilder.build()), got {type(v).__name__}")
    return v


def _computation_list(v: Any) -> tuple[Any, ...]:
    if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
        raise TypeError(f"expected a sequence of XlaComputations, got {type(v).__name__}")
    return tuple(_computation(c) for c in v)


def dot_dimension_numbers(v: Any) -> DotDimensionNumbers:
    """A DotDimensionNumbers, a mapping of its four fields, or ``((lc, rc), (lb, rb))``."""
    if isinstance(v, (DotDimensionNumbers, dict)) or hasattr(v, "lhs_contracting_dimensions"):
        return _dimension_record(DotDimensionNumbers, v)
    parts = _seq(v)
    if len(parts) != 2:
        raise TypeError(f"expected ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)), got {v!r}")
    contracting, batch = (_seq(p) for p in parts)
    if len(contracting) != 2 or len(batch) != 2:
        raise TypeError(f"expected ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)), got {v!r}")
    return DotDimensionNumbers(_int_list(contracting[0]), _int_list(contracting[1]), _int_list(batch[0]),
                               _int_list(batch[1])).frozen()


def ragged_dot_dimension_numbers(v: Any) -> RaggedDotDimensionNumbers:
    """A RaggedDotDimensionNumbers (or any object with its three fields, as jax.lax's), a mapping of
    them, or ``(dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions)``."""
    names = ("dot_dimension_numbers", "lhs_ragged_dimensions", "rhs_group_dimensions")
    if isinstance(v, dict):
        unknown = set(v) - set(names)
        if unknown or "dot_dimension_numbers" not in v:
            raise ValueError(f"a RaggedDotDimensionNumbers mapping has the keys {list(names)} "
                             f"(dot_dimension_numbers required), got {sorted(map(str, v))}")
        parts = [v.get(n, ()) for n in names]
    elif v is not None and all(hasattr(v, n) for n in names):
        parts = [getattr(v, n) for n in names]
    else:
        parts = _seq(v) if v is not None else []
        if len(parts) != 3:
            raise TypeError("expected a RaggedDotDimensionNumbers or (dot_dimension_numbers, lhs_ragged_dimensions, "
                            f"rhs_group_dimensions), got {_short_repr(v)}")
    try:
        return RaggedDotDimensionNumbers(dot_dimension_numbers(parts[0]), _int_list(parts[1]), _int_list(parts[2]))
    except TypeError as e:
        raise TypeError(f"RaggedDotDimensionNumbers: {e}") from None


def _dimension_record(cls: type, v: Any) -> Any:
    """A dimension-numbers dataclass from itself, a mapping of its fields, or an object with them;
    every field checked (an int, or a sequence of ints) whichever way it came."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if isinstance(v, dict):
        unknown = set(v) - set(fields)
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields {sorted(map(str, unknown))}")
        values = v
    elif isinstance(v, cls) or (v is not None and all(hasattr(v, name) for name in fields)):
        values = {name: getattr(v, name) for name in fields}
    else:
        raise TypeError(f"expected a {cls.__name__} (or a mapping of its fields), got {_short_repr(v)}")
    checked = {}
    for name, x in values.items():
        try:
            checked[name] = _int(x) if fields[name].type in ("int", int) else _int_list(x)
        except TypeError as e:
            raise TypeError(f"{cls.__name__}.{name}: {e}") from None
    return cls(**checked).frozen()


def convolution_dimension_numbers(v: Any) -> ConvolutionDimensionNumbers | None:
    """``None`` (XLA's default layout, filled in by the shape rule), three layout strings such as
    ``("NHWC", "HWIO", "NHWC")``, a mapping of the fields, or a ConvolutionDimensionNumbers."""
    if isinstance(v, (list, tuple)) and len(v) == 3 and all(isinstance(x, str) for x in v):
        return conv_dimension_numbers_from_strings(*v)
    return _dimension_record(ConvolutionDimensionNumbers, v)


def _precision_config(v: Any) -> PrecisionConfig:
    """A PrecisionConfig, one precision for both operands (``"HIGHEST"``), or one per operand."""
    field = ""
    if isinstance(v, PrecisionConfig):
        v, field = v.operand_precision, "PrecisionConfig.operand_precision: "
    try:
        if isinstance(v, (str, Precision)):
            return PrecisionConfig([_precision(v), _precision(v)]).frozen()
        precisions = [_precision(p) for p in _seq(v)]
    except (TypeError, ValueError) as e:
        raise type(e)(f"{field}{e}") from None
    if len(precisions) not in (0, 2):  # none: the default for both operands
        raise ValueError(f"{field}expected one precision per operand (2), got {len(precisions)}")
    return PrecisionConfig(precisions).frozen()


def padding_config(v: Any) -> PaddingConfig:
    """A PaddingConfig (or any object with ``.dimensions`` of records with ``edge_padding_low``,
    ``edge_padding_high``, ``interior_padding``), or a sequence of ``(low, high, interior)`` triples.
    Returns a new PaddingConfig, so later changes to the caller's object do not reach the op."""
    fields = ("edge_padding_low", "edge_padding_high", "interior_padding")
    entries = _seq(v.dimensions) if hasattr(v, "dimensions") else _seq(v)
    out = []
    for i, entry in enumerate(entries):
        if all(hasattr(entry, f) for f in fields):
            triple = tuple(getattr(entry, f) for f in fields)
        elif isinstance(entry, (str, bytes)) or not hasattr(entry, "__iter__"):
            raise TypeError(f"padding_config entry {i} must be a (low, high, interior) triple, got {entry!r}")
        else:
            triple = tuple(entry)
        if len(triple) != 3:
            raise TypeError(f"padding_config entry {i} must be a (low, high, interior) triple, got {entry!r}")
        try:
            out.append(PaddingConfigDimension(*(_int(x) for x in triple)))
        except TypeError as e:
            raise TypeError(f"padding_config entry {i}: {e}") from None
    return PaddingConfig(out).frozen()


def replica_groups(v: Any) -> tuple[ReplicaGroup, ...]:
    """``None`` (no groups: every replica together), or a sequence of ReplicaGroups or of sequences of
    replica ids; ids are >= 0 and each appears in at most one group."""
    if v is None:
        return ()
    groups, seen = [], set()
    for i, g in enumerate(_seq(v)):
        ids = g.replica_ids if isinstance(g, ReplicaGroup) else g
        try:
            ids = _int_list(ids)
        except TypeError as e:
            raise TypeError(f"replica group {i} (ReplicaGroup.replica_ids): {e}") from None
        for r in ids:
            if r < 0 or r in seen:
                raise ValueError(f"replica group {i}: replica id {r} is " + ("negative" if r < 0 else "in two groups"))
            seen.add(r)
        groups.append(ReplicaGroup(list(ids)).frozen())
    return tuple(groups)


def channel_id(v: Any) -> int | None:
    """A channel id: ``None`` (no channel), a positive integer, or a ChannelHandle (anything with ``.handle``)."""
    if v is None:
        return None
    handle = getattr(v, "handle", v)
    try:
        value = _int(handle)
    except TypeError:
        raise TypeError(f"expected a channel id (a positive integer or a ChannelHandle), got {_short_repr(v)}") from None
    if value < 1:
        raise ValueError(f"a channel id is a positive integer, got {value}")
    return value


def layout(v: Any) -> Layout | Shape:
    """A collective's ``layout``: a Layout, its minor_to_major sequence, or (xla_client's
    ``shape_with_layout``) a Shape; the shape rule checks it against the result."""
    if isinstance(v, (Layout, Shape)):
        return v
    if isinstance(v, str):
        return _shape(v)
    minor_to_major = _int_list(v)
    return Layout(minor_to_major)


def _host_channel(direction: str, value: int) -> Callable[[Any], int]:
    """A channel of one host-transfer direction: as ``channel_id`` (not None); a ChannelHandle-like object with
    a ``type`` must have that direction (its name, e.g. ``DEVICE_TO_HOST``, or its number)."""
    def normalize(v: Any) -> int:
        if v is None:
            raise TypeError(f"expected a {direction.lower().replace('_', '-')} channel (a positive integer or a "
                            "ChannelHandle), got None")
        kind = getattr(v, "type", None)
        if kind is not None and getattr(kind, "name", kind) != direction and kind != value:
            raise ValueError(f"the channel must be a {direction} channel, got type {_short_repr(kind)}")
        return cast(int, channel_id(v))  # not None: refused above
    return normalize


def op_metadata(v: Any) -> OpMetadata:
    """An OpMetadata (any object with op_type, op_name, source_file, source_line; None is empty)."""
    names = ("op_type", "op_name", "source_file", "source_line")
    if not all(hasattr(v, n) for n in names):
        raise TypeError(f"expected an OpMetadata (op_type, op_name, source_file, source_line), got {_short_repr(v)}")
    values = {n: getattr(v, n) for n in names}
    for n in names[:3]:
        if values[n] is None:
            values[n] = ""
        elif not isinstance(values[n], str):
            raise TypeError(f"OpMetadata.{n}: expected a string, got {_short_repr(values[n])}")
    line = 0 if values["source_line"] is None else values["source_line"]
    try:
        values["source_line"] = _int(line)
    except TypeError as e:
        raise TypeError(f"OpMetadata.source_line: {e}") from None
    return OpMetadata(**values).frozen()


def op_sharding(v: Any) -> OpSharding:
    """An OpSharding (any object with xla_client's OpSharding fields), checked: a known type; MAXIMAL names one
    device; OTHER's tile dimensions (> 0) multiply to the number of devices, which are distinct and >= 0;
    TUPLE's elements are shardings themselves."""
    if not hasattr(v, "type"):
        raise TypeError(f"expected an OpSharding (type, tile_assignment_dimensions, tile_assignment_devices, ...), "
                        f"got {_short_repr(v)}")
    try:
        kind = OpSharding_Type(_int(v.type))
    except ValueError:
        raise ValueError(f"OpSharding.type must be one of {[t.name for t in OpSharding_Type]}, "
                         f"got {_short_repr(v.type)}") from None
    dims = _int_list(list(getattr(v, "tile_assignment_dimensions", []) or []))
    devices = _int_list(list(getattr(v, "tile_assignment_devices", []) or []))
    tuples = [op_sharding(t) for t in (getattr(v, "tuple_shardings", []) or [])]
    last = bool(getattr(v, "replicate_on_last_tile_dim", False))
    if any(d < 0 for d in devices) or len(set(devices)) != len(devices):
        raise ValueError(f"OpSharding.tile_assignment_devices must be distinct device ids >= 0, got {devices}")
    if kind == OpSharding_Type.MAXIMAL and len(devices) != 1:
        raise ValueError(f"a MAXIMAL OpSharding names exactly one device, got tile_assignment_devices={devices}")
    if kind == OpSharding_Type.OTHER:
        if not dims or any(d <= 0 for d in dims) or math.prod(dims) != len(devices):
            raise ValueError(f"an OTHER OpSharding's tile_assignment_dimensions {dims} (each > 0) must multiply to "
                             f"the number of tile_assignment_devices, {len(devices)}")
    if kind == OpSharding_Type.TUPLE and not tuples:
        raise ValueError("a TUPLE OpSharding needs tuple_shardings")
    return OpSharding(kind, dims, devices, tuples, last).frozen()


NORMALIZERS: dict[str, Callable[[Any], Any]] = {
    "convolution_dimension_numbers": convolution_dimension_numbers,
    "gather_dimension_numbers": lambda v: _dimension_record(GatherDimensionNumbers, v),
    "scatter_dimension_numbers": lambda v: _dimension_record(ScatterDimensionNumbers, v),
    "dot_dimension_numbers": dot_dimension_numbers,
    "ragged_dot_dimension_numbers": ragged_dot_dimension_numbers,
    "precision_config": _precision_config,
    "padding_config": padding_config,
    "int": _int,
    "bool": _bool,
    "float": _float,
    "str": _str,
    "int_list": _int_list,
    "int_list_or_none": _int_list_or_none,
    "int_pairs": _int_pairs,
    "bool_list": _bool_list,
    "element_type": element_type,
    "shape": _shape,
    "literal": _literal,
    "comparison_direction": _direction,
    "comparison_type": _comparison_type,
    "transpose": _transpose,
    "fft_type": _fft_type,
    "result_accuracy": _result_accuracy,
    "random_algorithm": _random_algorithm,
    "computation": _computation,
    "replica_groups": replica_groups,
    "channel_id": channel_id,
    "layout": layout,
    "computation_list": _computation_list,
}


def _enum_name(enum_type: type[enum.IntEnum]) -> Callable[[Any], str]:
    """A normalizer to the member's name, from the enum member (xla_client's or ours: anything with that
    ``.name``), its name (in its own case), or its number."""
    member = _enum_normalizer(enum_type, f"a {enum_type.__name__}", numbers=_values(enum_type), exact_case=True,
                              listing=", ".join(f"{m.name}={m.value}" for m in enum_type))

    def normalize(v: Any) -> str:
        name = getattr(v, "name", None)
        return member(name if isinstance(name, str) and name in enum_type.__members__ else v).name
    return normalize


def _bytes(v: Any) -> bytes:
    if isinstance(v, str):
        return v.encode()
    if not isinstance(v, (bytes, bytearray)):
        raise TypeError(f"expected bytes or a string, got {_short_repr(v)}")
    return bytes(v)


def _target_name(v: Any) -> str:
    """A custom-call target's name: a string, or bytes as xla_client took it (``b"lapack_sgetrf"``), UTF-8."""
    if isinstance(v, (bytes, bytearray)):
        try:
            return bytes(v).decode()
        except UnicodeDecodeError:
            raise ValueError(f"the target name must be UTF-8, got {_short_repr(v)}") from None
    if not isinstance(v, str):
        raise TypeError(f"expected a string (or bytes, as xla_client took it), got {_short_repr(v)}")
    return v


def _shape_list(v: Any) -> tuple[Shape, ...]:
    return tuple(_shape(s) for s in _seq(v))


def _shape_index(v: Any) -> tuple[int, ...]:
    index = _int_list(v)
    if any(i < 0 for i in index):
        raise ValueError(f"a shape index has no negative entries, got {list(index)}")
    return index


def _output_operand_aliasing(v: Any) -> tuple[tuple[tuple[int, ...], tuple[int, tuple[int, ...]]], ...]:
    """``[(output_shape_index, (operand_index, operand_shape_index)), ...]``."""
    out = []
    for entry in _seq(v):
        pair = _seq(entry)
        if len(pair) != 2 or len(_seq(pair[1])) != 2:
            raise ValueError(f"each aliasing entry is (output_shape_index, (operand_index, operand_shape_index)), "
                             f"got {_short_repr(entry)}")
        operand_index, operand_shape_index = _seq(pair[1])
        out.append((_shape_index(pair[0]), (_int(operand_index), _shape_index(operand_shape_index))))
    return tuple(out)


NORMALIZERS.update({
    "device_to_host_channel": _host_channel("DEVICE_TO_HOST", 2),
    "host_to_device_channel": _host_channel("HOST_TO_DEVICE", 3),
    "bytes": _bytes,
    "target_name": _target_name,
    "shape_list": _shape_list,
    "custom_call_schedule": _enum_name(CustomCallSchedule),
    "custom_call_api_version": _enum_name(CustomCallApiVersion),
    "output_operand_aliasing": _output_operand_aliasing,
})


def normalize(type_name: str, value: Any) -> Any:
    optional = type_name.endswith("?")
    base = type_name.rstrip("?")
    if value is None and optional:
        return None
    if base not in NORMALIZERS:
        raise ValueError(f"unknown attribute type '{type_name}'")
    return NORMALIZERS[base](value)
