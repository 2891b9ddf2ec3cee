"""Host-side state of side-effecting ops: the infeed and outfeed of an execution.

- Infeed and outfeed: ``backend.execute(computation, args, infeed=[v0, v1, ...], outfeed=out)``.
  Each Infeed the program runs takes the next value of ``infeed`` (in program order); each Outfeed
  appends its operand to the list ``out``. They are also the host end of host transfers: RecvFromHost
  takes the next ``infeed`` value, SendToHost appends to ``out``. :func:`execute_with_io` returns both at once.
(Tokens are :mod:`backend.hlo.token`; custom-call targets :mod:`backend.runtime.custom_calls`.)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.errors import OpError
from backend.hlo import etypes
from backend.hlo.token import TOKEN

#: The ops that read or fill an execution's infeed and outfeed.
HOST_IO_OPCODES = frozenset({"Infeed", "InfeedWithToken", "Outfeed", "OutfeedWithToken", "SendToHost",
                             "RecvFromHost"})
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


def conform(op: str, what: str, shape: Any, value: Any) -> Any:
    """``value`` as the NumPy value of ``shape`` (a tuple for a tuple shape, :data:`TOKEN` for a token),
    or an OpError naming ``what`` (``infeed value 0``, ``the result of target 'x'``) and both shapes."""
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
