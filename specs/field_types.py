"""The value type of every field of a spec file, checked before the loader reads the field.

A wrongly typed value (a string where a bool is expected, a number where a list is, a list of
the wrong things) is a SpecError naming the file, the line, the field and the value. The tables
below are the schema of ``specs/SCHEMA.md`` as types; the loader checks the values' meaning.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any


class FieldType:
    """A value type: a description for messages and a predicate (``problem`` says what is wrong)."""

    def __init__(self, description: str, accepts: Callable[[Any], bool]) -> None:
        self.description = description
        self.accepts = accepts

    def problem(self, value: Any) -> str | None:
        """``None`` when ``value`` has this type, else what is wrong with it."""
        if self.accepts(value):
            return None
        return f"expected {self.description}, got {_describe(value)}"


class ListOf(FieldType):
    def __init__(self, item: FieldType) -> None:
        super().__init__(f"a list of {item.description}", lambda v: isinstance(v, list))
        self.item = item

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, list):
            return super().problem(value)
        for i, x in enumerate(value):
            inner = self.item.problem(x)
            if inner is not None:
                return f"item {i}: {inner}"
        return None


class MappingOf(FieldType):
    def __init__(self, item: FieldType) -> None:
        super().__init__(f"a mapping to {item.description}", lambda v: isinstance(v, dict))
        self.item = item

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, dict):
            return super().problem(value)
        for key, x in value.items():
            if not isinstance(key, str):
                return f"key {key!r}: expected a string key, got {type(key).__name__}"
            inner = self.item.problem(x)
            if inner is not None:
                return f"'{key}': {inner}"
        return None


class OneOf(FieldType):
    def __init__(self, *choices: FieldType) -> None:
        super().__init__(" or ".join(c.description for c in choices), lambda v: False)
        self.choices = choices

    def problem(self, value: Any) -> str | None:
        if any(c.problem(value) is None for c in self.choices):
            return None
        return f"expected {self.description}, got {_describe(value)}"


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


STR = FieldType("a string", lambda v: isinstance(v, str))
BOOL = FieldType("true or false", lambda v: isinstance(v, bool))
INT = FieldType("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
COUNT = FieldType("an integer >= 1", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1)
NUMBER = FieldType("a number", _is_number)
TOLERANCE_BOUND = FieldType("a finite number >= 0", lambda v: _is_number(v) and math.isfinite(v) and v >= 0)
MAPPING = FieldType("a mapping", lambda v: isinstance(v, dict))
ANY = FieldType("anything", lambda v: True)
DIMS = ListOf(INT)

#: Top-level fields; a field in ``NULLABLE`` may be left empty.
TOP: dict[str, FieldType] = {
    "op": STR, "family": STR, "summary": STR, "semantics": STR, "signatures": ListOf(STR), "args": MAPPING,
    "element_types": MappingOf(ListOf(STR)), "result": MappingOf(STR), "type_constraint": STR,
    "constraints": MappingOf(STR), "examples": ListOf(MAPPING), "errors": ListOf(MAPPING), "tolerance": ANY,
    "implementation_defined": MAPPING, "generator": MAPPING, "shape_rule": STR, "executable": BOOL,
    "not_executable": STR, "tuple_operands": BOOL,
    "see_also": ListOf(STR), "call_forms": ListOf(MAPPING), "forms": MappingOf(ListOf(STR)),
}
NULLABLE = frozenset({"semantics", "element_types", "result", "examples", "errors", "implementation_defined",
                      "generator", "see_also", "call_forms"})
ARG: dict[str, FieldType] = {"kind": STR, "type": STR, "element": STR, "default": ANY, "doc": STR,
                             "broadcast": BOOL, "constraint": STR}
CALL_FORM: dict[str, FieldType] = {"name": STR, "adapter": STR, "args": OneOf(MAPPING, ListOf(STR)),
                                   "rename": MappingOf(STR), "doc": STR}
FORM_ARG: dict[str, FieldType] = {"to": STR, "single": BOOL, "builder": BOOL, "type": STR, "default": ANY,
                                  "keyword_only": BOOL}
EXAMPLE: dict[str, FieldType] = {"name": STR, "inputs": MAPPING, "attrs": MAPPING, "expected": ANY, "doc": STR,
                                 "implementation_defined": ANY, "infeed": ListOf(MAPPING), "outfeed": ListOf(MAPPING),
                                 "devices": MAPPING}
ERROR: dict[str, FieldType] = {"name": STR, "violates": STR, "inputs": MAPPING, "attrs": MAPPING, "devices": MAPPING}
#: An example's ``devices``: {replicas: R, partitions: P}, both >= 1.
DEVICES: dict[str, FieldType] = {"replicas": COUNT, "partitions": COUNT}
BOUND: dict[str, FieldType] = {"rtol": TOLERANCE_BOUND, "atol": TOLERANCE_BOUND, "log2_scale": STR}
#: A generated operand's value hint: numbers (min, max, scale), special_values: false, or a matrix
#: structure's name (``structure``, one of conformance.values.MATRIX_STRUCTURES).
MATRIX_STRUCTURES = ("positive_definite", "diagonally_dominant", "positive_definite_two_triangles")
_MIN_MAX = MappingOf(OneOf(NUMBER, BOOL, FieldType(f"a matrix structure ({', '.join(MATRIX_STRUCTURES)})",
                                                    lambda v: v in MATRIX_STRUCTURES)))
GENERATOR: dict[str, FieldType] = {
    "element_types": ListOf(STR), "shapes": ListOf(DIMS), "values": MappingOf(_MIN_MAX),
    "special_values": BOOL, "configs": ListOf(MAPPING), "count": COUNT,
    "devices": ListOf(ListOf(COUNT)),
}
#: One generator config; a variadic argument's shapes are a list of dimension lists; a tuple-shaped operand
#: is {tuple: [dims or literal, ...]}.
_CONFIG_SHAPE = OneOf(DIMS, FieldType("a {tuple: [...]} mapping", lambda v: isinstance(v, dict) and set(v) == {"tuple"}))
CONFIG: dict[str, FieldType] = {"name": STR, "shapes": MappingOf(OneOf(_CONFIG_SHAPE, ListOf(_CONFIG_SHAPE))),
                                "attrs": MAPPING,
                                "types": MappingOf(OneOf(STR, ListOf(STR))), "infeed": ListOf(STR),
                                "devices": ListOf(ListOf(COUNT))}
EXAMPLE_NULLABLE = frozenset({"inputs", "attrs"})


def check_fields(node: Mapping[str, Any], types: Mapping[str, FieldType], fail: Callable[[str, str], Exception],
                 nullable: frozenset[str] = frozenset()) -> None:
    """Raise ``fail(key, message)`` for the first field of ``node`` whose value has the wrong type.

    Fields not in ``types`` are left to the loader's unknown-key check.
    """
    for key, value in node.items():
        if key not in types or (value is None and key in nullable):
            continue
        problem = types[key].problem(value)
        if problem is not None:
            raise fail(key, problem)
