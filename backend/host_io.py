"""Host-side state of side-effecting ops: token values, infeed and outfeed, custom-call targets.

- A token carries no data. At run time it is an empty ``pred`` array (:data:`TOKEN`); a
  :class:`Token` (an ndarray subclass of the same value) marks a token *input* where one must be
  told apart from a ``pred[0]`` array (a spec literal ``{"token[]": []}``).
- Infeed and outfeed: ``backend.execute(computation, args, infeed=[v0, v1, ...], outfeed=out)``.
  Each Infeed the program runs takes the next value of ``infeed`` (in program order); each Outfeed
  appends its operand to the list ``out``. They are also the host end of host transfers: RecvFromHost
  takes the next ``infeed`` value, SendToHost appends to ``out``. :func:`execute_with_io` returns both at once.
- Custom-call targets: ``register_custom_call_target(name, reference=fn, jax=fn)``. A target is
  called with the operands (NumPy arrays on ``reference``, traced jax arrays on ``jax``) and returns
  the result (a tuple for a tuple shape). It also gets ``opaque=`` (the op's opaque bytes) and
  ``computation=`` (a function running the op's called computation on its backend's values) when
  its signature names them.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from backend.errors import OpError

#: The ops that read or fill an execution's infeed and outfeed.
HOST_IO_OPCODES = frozenset({"Infeed", "InfeedWithToken", "Outfeed", "OutfeedWithToken", "SendToHost",
                             "RecvFromHost"})
#: The run-time value of a token: an empty pred array.
TOKEN = np.zeros((0,), np.bool_)
TOKEN.flags.writeable = False


class Token(np.ndarray):
    """A token input (a spec literal ``{"token[]": []}``); its value is :data:`TOKEN`."""

    def __new__(cls) -> Token:
        return np.zeros((0,), np.bool_).view(cls)


def is_token(value: Any) -> bool:
    return isinstance(value, Token)


class HostIO:
    """The infeed values of one execution and the outfeed list it fills."""

    def __init__(self, infeed: Sequence[Any] = (), outfeed: list[Any] | None = None) -> None:
        if isinstance(infeed, (str, bytes, dict, np.ndarray)) or not isinstance(infeed, Sequence):
            raise OpError("execute", "arguments", f"infeed must be a list of values, got {type(infeed).__name__}",
                          "infeed")
        if outfeed is not None and not isinstance(outfeed, list):
            raise OpError("execute", "arguments", f"outfeed must be a list to append to, got {type(outfeed).__name__}",
                          "outfeed")
        self.infeed = list(infeed)
        self.taken = 0
        #: An exception raised inside a host callback (jax reports it wrapped in its own runtime error).
        self.error: Exception | None = None
        self.outfeed = outfeed if outfeed is not None else []

    def take(self, op: str) -> Any:
        """The next infeed value; an OpError when the infeed is exhausted (XLA would wait forever)."""
        if self.taken >= len(self.infeed):
            raise OpError(op, "infeed", f"the program reads infeed value {self.taken}, but execute() was given "
                          f"{len(self.infeed)} (pass them as execute(..., infeed=[...]))", "infeed")
        value = self.infeed[self.taken]
        self.taken += 1
        return value


_LOCK = threading.Lock()
_ACTIVE: list[HostIO] = []


class active_io:  # noqa: N801 (a context manager used like a function)
    """Makes ``io`` the infeed/outfeed of the execution running inside the ``with`` block."""

    def __init__(self, io: HostIO) -> None:
        self.io = io

    def __enter__(self) -> HostIO:
        with _LOCK:
            _ACTIVE.append(self.io)
        return self.io

    def __exit__(self, *exc: Any) -> None:
        with _LOCK:
            _ACTIVE.remove(self.io)


def current_io() -> HostIO:
    """The infeed/outfeed of the running execution (an empty one outside ``execute``)."""
    with _LOCK:
        return _ACTIVE[-1] if _ACTIVE else HostIO()


def execute_with_io(backend: Any, computation: Any, arguments: Sequence[Any], infeed: Sequence[Any] = (),
                    replicas: int = 1) -> tuple[list[Any], list[Any]]:
    """``(results, outfeed values)`` of running ``computation`` on ``backend`` with these infeed values."""
    outfeed: list[Any] = []
    results = backend.execute(computation, arguments, replicas, infeed=infeed, outfeed=outfeed)
    return results, outfeed


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


def conform(op: str, what: str, shape: Any, value: Any) -> Any:
    """``value`` as the NumPy value of ``shape`` (a tuple for a tuple shape, :data:`TOKEN` for a token),
    or an OpError naming ``what`` (``infeed value 0``, ``the result of target 'x'``) and both shapes."""
    from backend import etypes

    if shape.is_token():
        return TOKEN
    if shape.is_tuple():
        parts = shape.tuple_shapes()
        if not isinstance(value, (tuple, list)) or len(value) != len(parts):
            raise OpError(op, "host-value", f"{what} must be a tuple of {len(parts)} values for {shape}, got "
                          f"{type(value).__name__}", "value", {"shape": str(shape)})
        return tuple(conform(op, f"{what}[{i}]", s, v) for i, (s, v) in enumerate(zip(parts, value)))
    try:
        arr = np.asarray(value)
        etype = etypes.dtype_to_etype(arr.dtype)
    except Exception:
        raise OpError(op, "host-value", f"{what} must be {shape}, got {type(value).__name__}", "value",
                      {"shape": str(shape)}) from None
    if etype != shape.element_type() or arr.shape != shape.dimensions():
        raise OpError(op, "host-value", f"{what} must be {shape}, got {arr.dtype}{list(arr.shape)}", "value",
                      {"shape": str(shape)})
    return arr
