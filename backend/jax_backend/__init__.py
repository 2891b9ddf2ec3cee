"""The jax lowering: one function per op, mapping it onto ``jax.lax``.

Lowerings live in family modules of this package and register with ``@lowering("Op")``;
they take ``(ctx, *operands)`` (``ctx``: a :data:`LoweringContext`; jax arrays, traced) and return a jax
array (or a tuple).
Where jax or XLA cannot run a valid instance of an op (an element type it has no kernel for),
the family module says so up front with ``@limitation("Op")``: a function of the instruction and
its operands' shapes returning the reason, or ``None``; ``JaxBackend.supports()`` reports it and
``execute()`` refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate

from backend.hlo.graph import Instruction
from backend.hlo.shape import Shape
from backend.jax_backend.devices import JaxDeviceContext, configure_cpu_devices
from backend.registry import Registry
from backend.runtime.context import OpRunContext

configure_cpu_devices()  # before jax's backends start: several host devices for multi-device runs

#: A lowering's ``ctx``: the run context, its ``devices`` a :class:`~backend.jax_backend.devices.JaxDeviceContext`.
LoweringContext = OpRunContext[JaxDeviceContext]
Lowering = Callable[Concatenate[LoweringContext, ...], Any]
Limitation = Callable[[Instruction, list[Shape]], str | None]

LOWERINGS: Registry[Lowering] = Registry("jax lowering", __name__)
lowering = LOWERINGS.register
LIMITATIONS: Registry[Limitation] = Registry("jax limitation", __name__)
limitation = LIMITATIONS.register
