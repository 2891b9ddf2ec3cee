"""The project's own error types.

Every invalid input raises :class:`OpError` (a ``ValueError``) naming the op, the argument,
the violated constraint id and the offending values. A backend that cannot run something
raises :class:`UnsupportedError` naming the op and the reason. Anything else going wrong while
a backend runs an op (a bug in an evaluator or lowering, a compiler crash) is an
:class:`ExecutionError` naming the backend and the op, with the original exception as its cause:
never an ``UnsupportedError``, which only a deliberate refusal may raise.
"""

from __future__ import annotations

from typing import Any


class OpError(ValueError):
    """Invalid input to an operation.

    ``constraint`` is the spec's constraint id (``C1``, ``C2``...) or ``arg-type`` for an
    argument of the wrong Python kind (not an XlaOp, not a list of ints...).
    """

    def __init__(self, op: str, constraint: str, message: str, arg: str | None = None,
                 values: dict[str, Any] | None = None) -> None:
        self.op = op
        self.constraint = constraint
        self.arg = arg
        self.values = dict(values or {})
        self.detail = message
        where = f" (argument '{arg}')" if arg else ""
        super().__init__(f"{op}: {constraint} violated{where}: {message}")


class RuntimeSizeError(OpError):
    """A runtime dimension size is invalid: outside ``[0, bound]`` of a bounded-dynamic dimension, or
    inconsistent with the other sizes (DynamicReshape's element count, two dynamic operands of an
    element-wise op whose runtime sizes differ). Raised while running a computation, not while
    building it, so its ``constraint`` is ``runtime-size`` rather than a spec constraint id."""

    def __init__(self, op: str, message: str, arg: str | None = None, values: dict[str, Any] | None = None) -> None:
        super().__init__(op, "runtime-size", message, arg, values)


class UnsupportedError(RuntimeError):
    """A backend cannot run an op (or an element type) and says why."""

    def __init__(self, backend: str, op: str, reason: str) -> None:
        self.backend = backend
        self.op = op
        self.reason = reason
        super().__init__(f"backend '{backend}' does not support {op}: {reason}")


class ExecutionError(RuntimeError):
    """A backend failed while running an op (not a refusal): ``__cause__`` is the original exception."""

    def __init__(self, backend: str, op: str, error: BaseException) -> None:
        self.backend = backend
        self.op = op
        self.error = error
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        super().__init__(f"backend '{backend}' failed in {op}: {type(error).__name__}: {first}")


class SpecError(ValueError):
    """A spec file is malformed; the message names the file, the key and the line."""
