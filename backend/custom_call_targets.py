"""Example custom-call targets, registered on import (the CustomCall specs' examples use them).

Each has a NumPy function (``reference``) and a jax one; user targets are registered the same way
with :func:`backend.register_custom_call_target`.

- ``xla_semantics.identity(x)``: x. ``xla_semantics.negate(x)``: -x. ``xla_semantics.add(x, y)``: x + y.
- ``xla_semantics.swap(x, y)``: the tuple (y, x).
- ``xla_semantics.opaque_length(...)``: the number of bytes of the op's ``opaque`` as an s32 scalar.
- ``xla_semantics.apply(...)``: the op's called computation applied to the operands.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from backend.host_io import register_custom_call_target


def _swap(x: Any, y: Any) -> tuple[Any, Any]:
    return y, x


def _apply(*operands: Any, computation: Any) -> Any:
    return computation(*operands)


register_custom_call_target("xla_semantics.identity", reference=lambda x: np.array(x), jax=lambda x: x)
register_custom_call_target("xla_semantics.negate", reference=np.negative, jax=jnp.negative)
register_custom_call_target("xla_semantics.add", reference=np.add, jax=jnp.add)
register_custom_call_target("xla_semantics.swap", reference=_swap, jax=_swap)
register_custom_call_target("xla_semantics.opaque_length",
                            reference=lambda *operands, opaque: np.int32(len(opaque)),
                            jax=lambda *operands, opaque: jnp.int32(len(opaque)))
register_custom_call_target("xla_semantics.apply", reference=_apply, jax=_apply)
