"""Shape and literal text: ``f32[2,3]{0,1}``, ``(f32[2], token[])`` and ``{f32[2]: [1, 2]}`` mappings.

The forms the specs, the builder's attribute normalizers and the docs write shapes and literal values in.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import MAX_TUPLE_DEPTH, Shape
from backend.hlo.token import Token

_SHAPE_RE = re.compile(r"^\s*([a-z0-9]+)\[([0-9,<=\s]*)\](?:\{([0-9,\s]*)\})?\s*$")
_DIM_RE = re.compile(r"^(<=)?([0-9]+)$")


def parse_shape(text: str) -> Shape:
    """``f32[2,3]`` -> Shape; ``f32[<=5,3]`` has a dynamic dimension of bound 5; ``f32[2,3]{0,1}`` has the
    layout of minor_to_major (0, 1) (XLA's text form); ``token[]`` is the token shape; ``(f32[2], s32[])``
    a tuple shape."""
    text = text.strip()
    if _paren_depth(text) > MAX_TUPLE_DEPTH:
        raise ValueError(f"not a shape: tuples nest at most {MAX_TUPLE_DEPTH} deep, '{text[:40]}...' nests deeper")
    return _parse_shape(text)


def _paren_depth(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    return deepest


def _parse_shape(text: str) -> Shape:
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        inner = text[1:-1].strip()
        parts = _split_top_level(inner) if inner else []
        return Shape.tuple_shape(_parse_shape(p) for p in parts)
    m = _SHAPE_RE.match(text)
    if not m:
        raise ValueError(f"not a shape: '{text}' (expected e.g. f32[2,3])")
    if m.group(1) == "token":
        return Shape.token_shape()
    et = etypes.from_short_name(m.group(1))
    entries = [_DIM_RE.match(d) for d in m.group(2).replace(" ", "").split(",") if d]
    if not all(entries):
        raise ValueError(f"not a shape: '{text}' (a dimension is a size like 3 or a bound like <=5)")
    dims = [int(e.group(2)) for e in entries if e]
    dynamic = [e.group(1) is not None for e in entries if e]
    layout = None if m.group(3) is None else [int(d) for d in m.group(3).replace(" ", "").split(",") if d]
    return Shape.array_shape(et, dims, layout, dynamic_dimensions=dynamic)


def _split_top_level(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


def _scalar(value: Any, etype: PrimitiveType) -> Any:
    if value is None or isinstance(value, dict):
        raise ValueError(f"{value!r} is not a {etypes.short_name(etype)} value")
    if isinstance(value, str):
        v = value.strip().lower()
        if v.startswith(("0x", "-0x")) and etypes.is_int(etype):
            return int(v, 16)
        if etypes.is_complex(etype):
            return complex(v.replace("nan", "nan").replace(" ", ""))
        if v in ("nan", "+nan", "-nan", "inf", "+inf", "-inf", "-0", "-0.0", "+0.0"):
            return float(v)
        try:
            return float(v) if etypes.is_float(etype) else int(v)
        except ValueError:
            raise ValueError(f"cannot read '{value}' as {etypes.short_name(etype)}") from None
    if isinstance(value, list) and etypes.is_complex(etype) and len(value) == 2 \
            and all(isinstance(x, (int, float, str)) for x in value):
        # YAML reads exponents without a sign (3.0e38) as strings: accept numeric strings here
        return complex(*(_scalar(x, PrimitiveType.F64) for x in value))
    return value


def _map_nested(value: Any, fn: Any, depth: int) -> Any:
    if depth == 0:
        return fn(value)
    if not isinstance(value, list):
        raise ValueError(f"expected a nested list {depth} deep, got {value!r}")
    return [_map_nested(v, fn, depth - 1) for v in value]


def parse_literal(node: Any) -> Any:
    """``{f32[2]: [1, 2]}`` -> np.ndarray; ``{tuple: [lit, ...]}`` -> tuple of literals.

    Special float values are strings: ``nan``, ``inf``, ``-inf``, ``-0.0``; integers may be
    hex strings (``0x7f``); complex values are ``[re, im]`` pairs or strings (``1+2j``).
    Any malformed literal is a ValueError.
    """
    try:
        return _literal_value(node, 0)
    except (TypeError, OverflowError, AttributeError) as e:  # values NumPy cannot hold as the key's type
        raise ValueError(f"malformed literal {node!r}: {e}") from None


def _literal_value(node: Any, depth: int) -> Any:
    if depth > MAX_TUPLE_DEPTH:
        raise ValueError(f"tuple literals nest at most {MAX_TUPLE_DEPTH} deep")
    if not isinstance(node, dict) or len(node) != 1:
        raise ValueError(f"a literal is a one-key mapping like {{f32[2]: [1, 2]}}, got {node!r}")
    (key, value), = node.items()
    if key == "tuple":
        if not isinstance(value, list):
            raise ValueError("a tuple literal holds a list of literals")
        return tuple(_literal_value(v, depth + 1) for v in value)
    shape = parse_shape(str(key))
    if shape.is_token():  # a token carries no data: {"token[]": []}
        if value not in (None, []):
            raise ValueError(f"a token literal holds no values ({{token[]: []}}), got {value!r}")
        return Token()
    if not shape.is_array():
        raise ValueError(f"literal shape must be an array shape, got {shape}")
    dtype = shape.numpy_dtype()
    rank = shape.rank()
    py = _map_nested(value, lambda v: _scalar(v, shape.element_type()), rank)
    if etypes.is_int(shape.element_type()) and dtype.itemsize >= 1 and dtype.kind in "iu":
        arr = np.array(py, dtype=object)
        info = np.iinfo(dtype)
        flat = [int(x) for x in arr.reshape(-1)]
        # hex literals give bit patterns: wrap them into the type's range
        bits = dtype.itemsize * 8
        flat = [((x + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) if info.min < 0 and x > info.max
                else x for x in flat]
        arr = np.array(flat, dtype=dtype).reshape(arr.shape)
    else:
        arr = np.array(py, dtype=np.float64 if etypes.is_float(shape.element_type()) else None)
        arr = arr.astype(dtype)
    if arr.size == 0 and shape.element_count() == 0:
        arr = arr.reshape(shape.dimensions())  # a zero-size literal is written as []
    if arr.shape != shape.dimensions():
        raise ValueError(f"literal values have shape {list(arr.shape)}, the key says {shape}")
    return arr
