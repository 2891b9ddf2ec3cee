"""Normalizers for attribute values, one per attribute type named in the specs.

Each takes the user's value and returns the canonical one, or raises ``TypeError``/``ValueError``
with a message; the op builder turns that into an :class:`~backend.errors.OpError`.
A type ending in ``?`` also accepts ``None``.
"""

from __future__ import annotations

import dataclasses
import math
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
        raise TypeError(f"expected an integer, got {_short_repr(v)}")
    return int(v)


def _int_list(v: Any) -> tuple[int, ...]:
    if isinstance(v, (str, bytes, dict)) or not hasattr(v, "__iter__"):
        raise TypeError(f"expected a sequence of integers, got {_short_repr(v)}")
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


def _accuracy_mode(v: Any) -> ResultAccuracyMode:
    if isinstance(v, ResultAccuracyMode):
        return v
    if isinstance(v, str) and v.upper() in ResultAccuracyMode.__members__:
        return ResultAccuracyMode[v.upper()]
    raise ValueError(f"expected a result accuracy mode (DEFAULT, HIGHEST, TOLERANCE), got {_short_repr(v)}")


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
        return ResultAccuracy(mode)
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
    return ResultAccuracy(mode, _tolerance_bound("atol", fields["atol"]), _tolerance_bound("rtol", fields["rtol"]),
                          _int(fields["ulps"]))


def _computation(v: Any) -> Any:
    from backend.builder import XlaComputation
    if not isinstance(v, XlaComputation):
        raise TypeError(f"expected an XlaComputation (from XlaBuilder.build()), got {type(v).__name__}")
    return v


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
                               _int_list(batch[1]))


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
    return cls(**checked)


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
        v = v.operand_precision
    if isinstance(v, (str, Precision)):
        return PrecisionConfig((one(v), one(v)))
    precisions = tuple(one(p) for p in _seq(v))
    if len(precisions) not in (0, 2):  # none: the default for both operands
        raise ValueError(f"expected one precision per operand (2), got {len(precisions)}")
    return PrecisionConfig(precisions)


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
