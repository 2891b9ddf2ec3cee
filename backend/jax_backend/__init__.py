"""The jax lowering: one function per op, mapping it onto ``jax.lax``.

Lowerings live in family modules of this package and register with ``@lowering("Op")``;
they take ``(ctx, *operands)`` (jax arrays, traced) and return a jax array (or a tuple).
"""

from __future__ import annotations

from backend.registry import Registry

LOWERINGS = Registry("jax lowering", __name__)
lowering = LOWERINGS.register
