"""Shared test support: the deliberately wrong backends and the helpers that build and run computations
(tests/README.md)."""
