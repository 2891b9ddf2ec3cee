"""The operation specs (``specs/ops/*.yaml``) and their strict loader.

``load_all()`` returns every :class:`OpSpec`, keyed by op name; ``get(name)`` one of them.
The schema is documented in ``specs/SCHEMA.md``.
"""

from specs.loader import (
    ArgSpec,
    ErrorExample,
    Example,
    OpSpec,
    Tolerance,
    get,
    load_all,
    load_file,
    parse_literal,
    parse_shape,
)

__all__ = ["ArgSpec", "ErrorExample", "Example", "OpSpec", "Tolerance", "get", "load_all", "load_file",
           "parse_literal", "parse_shape"]
