"""Custom-call targets: ``register_custom_call_target(name, reference=fn, jax=fn)``, and the example targets.

A target is called with the operands (NumPy arrays on ``reference``, traced jax arrays on ``jax``) and returns
the result (a tuple for a tuple shape). It also gets ``opaque=`` (the op's opaque bytes) and ``computation=`` (a
function running the op's called computation on its backend's values) when its signature names them.

The example targets the CustomCall specs use are registered on import. Their functions are written with
operators both NumPy and jax arrays take, so this module (and the NumPy reference) needs no jax:

- ``xla_semantics.identity(x)``: x. ``xla_semantics.negate(x)``: -x. ``xla_semantics.add(x, y)``: x + y.
- ``xla_semantics.swap(x, y)``: the tuple (y, x).
- ``xla_semantics.opaque_length(...)``: the number of bytes of the op's ``opaque`` as an s32 scalar.
- ``xla_semantics.apply(...)``: the op's called computation applied to the operands.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from backend.errors import OpError


class CustomCallTarget:
    """A registered target: one function per backend, and which extra keywords each accepts."""

    def __init__(self, name: str, functions: dict[str, Callable[..., Any]]) -> None:
        self.name = name
        self.functions = functions

    def call(self, backend: str, operands: Sequence[Any], opaque: bytes, computation: Callable[..., Any] | None) -> Any:
        fn = self.functions[backend]
        params = _parameter_names(fn)
        extra: dict[str, Any] = {}
        if "opaque" in params:
            extra["opaque"] = opaque
        if "computation" in params and computation is not None:
            extra["computation"] = computation
        return fn(*operands, **extra)


def _parameter_names(fn: Callable[..., Any]) -> set[str]:
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # builtins without a signature take operands only
        return set()


_TARGETS: dict[str, CustomCallTarget] = {}


def register_custom_call_target(name: str, reference: Callable[..., Any] | None = None,
                                jax: Callable[..., Any] | None = None, **others: Callable[..., Any]) -> None:
    """Registers (or replaces) the custom-call target ``name``: ``reference`` runs on NumPy arrays,
    ``jax`` on traced jax arrays (the pallas backend uses ``jax``'s); ``others`` by backend name."""
    if not isinstance(name, str) or not name:
        raise OpError("register_custom_call_target", "arg-type", f"name must be a non-empty string, got {name!r}",
                      "name")
    functions = {k: v for k, v in {"reference": reference, "jax": jax, **others}.items() if v is not None}
    for backend, fn in functions.items():
        if not callable(fn):
            raise OpError("register_custom_call_target", "arg-type", f"the {backend} function of '{name}' is not "
                          f"callable: {fn!r}", backend)
    if not functions:
        raise OpError("register_custom_call_target", "arg-type", f"'{name}' needs a function for at least one "
                      "backend (reference=..., jax=...)", "reference")
    _TARGETS[name] = CustomCallTarget(name, functions)


def unregister_custom_call_target(name: str) -> None:
    _TARGETS.pop(name, None)


def custom_call_target(name: str, backend: str) -> CustomCallTarget | None:
    """The target ``name`` when it has a function for ``backend`` (pallas runs jax's)."""
    target = _TARGETS.get(name)
    if target is None:
        return None
    key = backend if backend in target.functions else ("jax" if backend == "pallas" else backend)
    if key not in target.functions:
        return None
    if key != backend:
        target = CustomCallTarget(name, {backend: target.functions[key], **target.functions})
    return target


def missing_target_reason(name: str, backend: str) -> str | None:
    """Why ``backend`` cannot run a custom call of ``name``, or None."""
    if custom_call_target(name, backend) is None:
        return f"no custom-call target '{name}' registered for backend '{backend}' " \
               "(backend.register_custom_call_target)"
    return None


# -- the example targets ----------------------------------------------------------------------------------------------
def _negate(x: Any) -> Any:
    return -x


def _add(x: Any, y: Any) -> Any:
    return x + y


def _swap(x: Any, y: Any) -> tuple[Any, Any]:
    return y, x


def _opaque_length(*operands: Any, opaque: bytes) -> Any:
    return np.int32(len(opaque))


def _apply(*operands: Any, computation: Any) -> Any:
    return computation(*operands)


register_custom_call_target("xla_semantics.identity", reference=lambda x: np.array(x), jax=lambda x: x)
register_custom_call_target("xla_semantics.negate", reference=_negate, jax=_negate)
register_custom_call_target("xla_semantics.add", reference=_add, jax=_add)
register_custom_call_target("xla_semantics.swap", reference=_swap, jax=_swap)
register_custom_call_target("xla_semantics.opaque_length", reference=_opaque_length, jax=_opaque_length)
register_custom_call_target("xla_semantics.apply", reference=_apply, jax=_apply)
