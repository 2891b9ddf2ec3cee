"""A small JSON Schema validator for the subset of draft 2020-12 that ``report_schema.json`` uses.

Keywords: ``type`` (a name or a list), ``properties``, ``required``, ``additionalProperties``
(false or a schema), ``items``, ``enum``, ``minimum``, ``pattern``, ``$ref`` to ``#/$defs/...``;
annotations (``title``, ``description``, ``$schema``, ``$id``, ``$defs``) are ignored. Any other
keyword is an error, so the schema cannot silently use one this validator does not check. Written
here rather than depending on ``jsonschema``: the subset is small and reading a report must not
need an extra package.
"""

from __future__ import annotations

import re
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "integer": (int,),
                                       "number": (int, float), "boolean": (bool,), "null": (type(None),)}
_ANNOTATIONS = {"title", "description", "$schema", "$id", "$defs", "$comment"}
_CHECKED = {"type", "properties", "required", "additionalProperties", "items", "enum", "minimum", "pattern", "$ref"}


def validate(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Every violation of ``schema`` by ``instance``, as ``path: problem`` lines (empty: valid)."""
    errors: list[str] = []
    _check(instance, schema, schema, "$", errors)
    return errors


def _is_type(value: Any, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[name])


def _check(value: Any, schema: dict[str, Any], root: dict[str, Any], path: str, errors: list[str]) -> None:
    unknown = set(schema) - _CHECKED - _ANNOTATIONS
    if unknown:
        raise ValueError(f"schema at {path} uses keywords this validator does not check: {sorted(unknown)}")
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"schema at {path}: only '#/$defs/...' references are supported, got {ref!r}")
        _check(value, root["$defs"][ref.removeprefix("#/$defs/")], root, path, errors)
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, n) for n in names):
            errors.append(f"{path}: expected {' or '.join(names)}, got {type(value).__name__} {value!r:.60}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r:.60} is not one of {schema['enum']}")
    if "minimum" in schema and _is_type(value, "number") and value < schema["minimum"]:
        errors.append(f"{path}: {value} is below the minimum {schema['minimum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r:.60} does not match {schema['pattern']!r}")
    if isinstance(value, dict):
        _check_object(value, schema, root, path, errors)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            _check(item, schema["items"], root, f"{path}[{i}]", errors)


def _check_object(value: dict[str, Any], schema: dict[str, Any], root: dict[str, Any], path: str,
                  errors: list[str]) -> None:
    errors.extend(f"{path}: missing required key '{key}'" for key in schema.get("required", ()) if key not in value)
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            _check(item, properties[key], root, f"{path}.{key}", errors)
        elif extra is False:
            errors.append(f"{path}: unexpected key '{key}'")
        elif isinstance(extra, dict):
            _check(item, extra, root, f"{path}.{key}", errors)
