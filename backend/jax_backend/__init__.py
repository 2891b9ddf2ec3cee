"""The jax lowering: one function per op, mapping it onto ``jax.lax``.

Lowerings live in family modules of this package and register with ``@lowering("Op")``;
they take ``(ctx, *operands)`` (jax arrays, traced) and return a jax array (or a tuple).
Where jax or XLA cannot run a valid instance of an op (an element type it has no kernel for),
the family module says so up front with ``@limitation("Op")``: a function of the instruction and
its operands' shapes returning the reason, or ``None``; ``JaxBackend.supports()`` reports it and
``execute()`` refuses.
"""

from __future__ import annotations

from backend.jax_backend.devices import configure_cpu_devices
from backend.registry import Registry

configure_cpu_devices()  # before jax's backends start: several host devices for multi-device runs

LOWERINGS = Registry("jax lowering", __name__)
lowering = LOWERINGS.register
LIMITATIONS = Registry("jax limitation", __name__)
limitation = LIMITATIONS.register
