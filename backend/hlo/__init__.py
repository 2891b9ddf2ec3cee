"""The HLO vocabulary, the lowest layer: element types, shapes and layouts, broadcasting, tokens, shape and
literal text, the attribute value types and their normalizers, the immutable graph with its HLO text printer,
and :class:`~backend.hlo.builder.XlaBuilder`.

Nothing here knows the specs, the ops or any backend (docs/ARCHITECTURE.md).
"""
