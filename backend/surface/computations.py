"""Sub-computations built with :mod:`backend.ops` that evaluators and lowerings share: CrossReplicaSum's add.

They are built with the ops, so they live here, above the shape rules (which only check computations).
"""

from __future__ import annotations

import functools

from backend import ops
from backend.hlo import etypes
from backend.hlo.builder import XlaBuilder
from backend.hlo.etypes import PrimitiveType
from backend.hlo.graph import XlaComputation
from backend.hlo.shape import Shape


@functools.cache
def add_computation(etype: PrimitiveType) -> XlaComputation:
    """``Add(p0, p1)`` of two scalars of ``etype`` (CrossReplicaSum's computation)."""
    b = XlaBuilder(f"add_{etypes.short_name(etype)}")
    scalar = Shape.scalar_shape(etype)
    ops.Add(ops.Parameter(b, 0, scalar, "x"), ops.Parameter(b, 1, scalar, "y"))
    return b.build()
