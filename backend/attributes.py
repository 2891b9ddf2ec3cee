"""Normalizers for attribute values, one per attribute type named in the specs.

Each takes the user's value and returns the canonical one, or raises ``TypeError``/``ValueError``
with a message; the op builder turns that into an :class:`~backend.errors.OpError`.
A type ending in ``?`` also accepts ``None``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from backend import etypes
from backend.api_types import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    PaddingConfig,
    PaddingConfigDimension,
    Precision,
    PrecisionConfig,
    ResultAccuracy,
    ResultAccuracyMode,
    ScatterDimensionNumbers,
    conv_dimension_numbers_from_strings,
)
from backend.etypes import PrimitiveType
from backend.shape import Shape


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"expected an integer, got {v!r}")
    return int(v)


def _int_list(v: Any) -> tuple[int, ...]:
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError(f"expected a sequence of integers, got {v!r}")
    return tuple(_int(x) for x in v)


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
    if isinstance(v, PrimitiveType):
        return v
    if isinstance(v, str):
        return etypes.from_short_name(v)
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return PrimitiveType(int(v))
    try:
        return etypes.dtype_to_etype(v)
    except ValueError:
        raise TypeError(f"expected an element type (PrimitiveType, dtype or name like 'f32'), got {v!r}") from None


def _shape(v: Any) -> Shape:
    if isinstance(v, Shape):
        return v
    if isinstance(v, str):
        from specs.loader import parse_shape
        return parse_shape(v)
    raise TypeError(f"expected a Shape, got {v!r}")


def _literal(v: Any) -> Any:
    if isinstance(v, tuple):
        return tuple(_literal(x) for x in v)
    if isinstance(v, dict):
        from specs.loader import parse_literal
        return parse_literal(v)
    arr = np.asarray(v)
    if arr.dtype == np.float64 and not isinstance(v, np.ndarray) and not isinstance(v, np.floating):
        pass  # Python floats stay f64, as xla_client's Constant did
    etypes.dtype_to_etype(arr.dtype)  # raises ValueError for unsupported dtypes
    return arr


def _direction(v: Any) -> ComparisonDirection:
    if isinstance(v, ComparisonDirection):
        return v
    if isinstance(v, str) and v.upper() in ComparisonDirection.__members__:
        return ComparisonDirection[v.upper()]
    raise ValueError(f"expected a comparison direction (EQ, NE, GE, GT, LE, LT), got {v!r}")


def _comparison_type(v: Any) -> ComparisonType:
    if isinstance(v, ComparisonType):
        return v
    if isinstance(v, str) and v.upper() in ComparisonType.__members__:
        return ComparisonType[v.upper()]
    raise ValueError(f"expected a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED), got {v!r}")


def _result_accuracy(v: Any) -> ResultAccuracy:
    if isinstance(v, ResultAccuracy):
        return v
    if isinstance(v, str) and v.upper() in ("DEFAULT", "HIGHEST"):
        return ResultAccuracy(ResultAccuracyMode[v.upper()])
    if isinstance(v, dict):
        unknown = set(v) - {"mode", "atol", "rtol", "ulps"}
        if unknown:
            raise ValueError(f"unknown result_accuracy keys {sorted(unknown)}")
        if "mode" in v:
            return ResultAccuracy(ResultAccuracyMode[str(v["mode"]).upper()])
        return ResultAccuracy(ResultAccuracyMode.TOLERANCE, float(v.get("atol", 0.0)), float(v.get("rtol", 0.0)),
                              int(v.get("ulps", 0)))
    raise TypeError(f"expected a ResultAccuracy, 'DEFAULT', 'HIGHEST' or {{atol, rtol, ulps}}, got {v!r}")


def _computation(v: Any) -> Any:
    from backend.builder import XlaComputation
    if not isinstance(v, XlaComputation):
        raise TypeError(f"expected an XlaComputation (from XlaBuilder.build()), got {type(v).__name__}")
    return v


def dot_dimension_numbers(v: Any) -> DotDimensionNumbers:
    """A DotDimensionNumbers, a mapping of its four fields, or ``((lc, rc), (lb, rb))``."""
    if isinstance(v, DotDimensionNumbers):
        return v
    if isinstance(v, dict):
        unknown = set(v) - {f.name for f in dataclasses.fields(DotDimensionNumbers)}
        if unknown:
            raise ValueError(f"unknown dimension-number fields {sorted(unknown)}")
        return DotDimensionNumbers(**{k: _int_list(x) for k, x in v.items()})
    if hasattr(v, "lhs_contracting_dimensions"):
        return DotDimensionNumbers(*(_int_list(getattr(v, f.name)) for f in dataclasses.fields(DotDimensionNumbers)))
    parts = _seq(v)
    if len(parts) != 2:
        raise TypeError(f"expected ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)), got {v!r}")
    contracting, batch = (_seq(p) for p in parts)
    if len(contracting) != 2 or len(batch) != 2:
        raise TypeError(f"expected ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)), got {v!r}")
    return DotDimensionNumbers(_int_list(contracting[0]), _int_list(contracting[1]), _int_list(batch[0]),
                               _int_list(batch[1]))


def _dimension_record(cls: type, v: Any) -> Any:
    """A dimension-numbers dataclass from itself, a mapping of its fields, or an object with them."""
    if isinstance(v, cls):
        return v
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if isinstance(v, dict):
        unknown = set(v) - set(fields)
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields {sorted(unknown)}")
        values = v
    elif all(hasattr(v, name) for name in fields):
        values = {name: getattr(v, name) for name in fields}
    else:
        raise TypeError(f"expected a {cls.__name__} (or a mapping of its fields), got {v!r}")
    return cls(**{name: (_int(x) if fields[name].type in ("int", int) else _int_list(x))
                  for name, x in values.items()})


def convolution_dimension_numbers(v: Any) -> ConvolutionDimensionNumbers | None:
    """``None`` (XLA's default layout, filled in by the shape rule), three layout strings such as
    ``("NHWC", "HWIO", "NHWC")``, a mapping of the fields, or a ConvolutionDimensionNumbers."""
    if isinstance(v, (list, tuple)) and len(v) == 3 and all(isinstance(x, str) for x in v):
        return conv_dimension_numbers_from_strings(*v)
    return _dimension_record(ConvolutionDimensionNumbers, v)


def _precision_config(v: Any) -> PrecisionConfig:
    """A PrecisionConfig, one precision for both operands (``"HIGHEST"``), or one per operand."""
    def one(p: Any) -> Precision:
        if isinstance(p, Precision):
            return p
        if isinstance(p, str) and p.upper() in Precision.__members__:
            return Precision[p.upper()]
        raise ValueError(f"expected a precision (DEFAULT, HIGH, HIGHEST), got {p!r}")

    if isinstance(v, PrecisionConfig):
        return v
    if isinstance(v, (str, Precision)):
        return PrecisionConfig((one(v), one(v)))
    return PrecisionConfig(tuple(one(p) for p in _seq(v)))


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
    return PaddingConfig(out)


NORMALIZERS: dict[str, Callable[[Any], Any]] = {
    "convolution_dimension_numbers": convolution_dimension_numbers,
    "gather_dimension_numbers": lambda v: _dimension_record(GatherDimensionNumbers, v),
    "scatter_dimension_numbers": lambda v: _dimension_record(ScatterDimensionNumbers, v),
    "dot_dimension_numbers": dot_dimension_numbers,
    "precision_config": _precision_config,
    "padding_config": padding_config,
    "int": _int,
    "bool": _bool,
    "float": _float,
    "str": _str,
    "int_list": _int_list,
    "int_pairs": _int_pairs,
    "bool_list": _bool_list,
    "element_type": element_type,
    "shape": _shape,
    "literal": _literal,
    "comparison_direction": _direction,
    "comparison_type": _comparison_type,
    "result_accuracy": _result_accuracy,
    "computation": _computation,
}


def normalize(type_name: str, value: Any) -> Any:
    optional = type_name.endswith("?")
    base = type_name.rstrip("?")
    if value is None and optional:
        return None
    if base not in NORMALIZERS:
        raise ValueError(f"unknown attribute type '{type_name}'")
    return NORMALIZERS[base](value)


def render(value: Any) -> str:
    """An attribute value as it appears in the HLO-like text."""
    if isinstance(value, (DotDimensionNumbers, PrecisionConfig, ConvolutionDimensionNumbers,
                          GatherDimensionNumbers, ScatterDimensionNumbers, PaddingConfig)):
        return str(value)
    if isinstance(value, (ComparisonDirection, ComparisonType)):
        return value.value
    if isinstance(value, PrimitiveType):
        return etypes.short_name(value)
    if isinstance(value, tuple):
        return "{" + ",".join(render(x) for x in value) + "}"
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=",", threshold=16).replace("\n", "")
    if isinstance(value, bool):
        return "true" if value else "false"
    from backend.builder import XlaComputation
    if isinstance(value, XlaComputation):
        return value.name
    return str(value)
