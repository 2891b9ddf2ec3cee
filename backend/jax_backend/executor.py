"""The ``jax`` backend: lowers a computation to ``jax.lax``, jit-compiles it once and caches it.

64-bit types work without touching the user's jax configuration: tracing and execution run
under ``jax.enable_x64(True)``.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from backend import etypes
from backend.backends import check_arguments, flatten_result
from backend.builder import XlaComputation
from backend.errors import OpError, UnsupportedError
from backend.etypes import PrimitiveType
from backend.interpreter import GraphWalker
from backend.jax_backend import LOWERINGS
from backend.registry import Registry
from backend.shape import Shape

#: Element types XLA knows but jax cannot pass in or out of a computation.
UNSUPPORTED_TYPES = frozenset({PrimitiveType.S1, PrimitiveType.U1})


def _leaf_shapes(shape: Shape) -> list[Shape]:
    if shape.is_tuple():
        return [leaf for s in shape.tuple_shapes() for leaf in _leaf_shapes(s)]
    return [shape] if shape.is_array() else []


class JaxBackend:
    name = "jax"

    def __init__(self, table: Registry = LOWERINGS, device: Any = None, name: str = "jax") -> None:
        self.name = name
        self._walker = GraphWalker(name, table)
        self._table = table
        self._device = device
        self._cache: weakref.WeakKeyDictionary[XlaComputation, Any] = weakref.WeakKeyDictionary()

    @property
    def platform(self) -> str:
        return (self._device or jax.devices()[0]).platform

    def supports(self, computation: XlaComputation) -> str | None:
        for comp in [*computation.subcomputations(), computation]:
            for inst in comp.instructions:
                if inst.opcode not in self._table:
                    return f"{inst.opcode} has no jax lowering"
                for shape in _leaf_shapes(inst.shape):
                    if shape.element_type() in UNSUPPORTED_TYPES:
                        return (f"{inst.opcode}: jax cannot hold {etypes.short_name(shape.element_type())} arrays "
                                "(it stores them as pred)")
                    if not shape.is_static():
                        return (f"{inst.opcode}: its result {shape} has a bounded-dynamic dimension, and jax.lax "
                                "arrays have static sizes (run it on the reference backend)")
        return None

    def lower(self, computation: XlaComputation) -> Any:
        """The jitted function for a computation (created once, then cached)."""
        fn = self._cache.get(computation)
        if fn is None:
            walker = self._walker

            def run(*args: Any) -> Any:
                return walker.run(computation, args)
            fn = jax.jit(run, device=self._device) if self._device is not None else jax.jit(run)
            self._cache[computation] = fn
        return fn

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1) -> list[Any]:
        args = check_arguments(computation, arguments)
        fn = self.lower(computation)
        with jax.enable_x64(True):
            try:
                out = fn(*args)
                out = jax.tree_util.tree_map(np.asarray, out)
            except (OpError, UnsupportedError):
                raise
            except Exception as e:  # compile or runtime failure inside XLA: say so, don't leak it
                msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise UnsupportedError(self.name, computation.root_instruction.opcode,
                                       f"{type(e).__name__}: {msg}") from e
        return flatten_result(out, computation.root_instruction.shape)
