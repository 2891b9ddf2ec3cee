"""The Backend protocol: the small interface the conformance suite and users run computations through, and the
checks of ``execute``'s arguments every backend shares.

A backend has a ``name``, ``supports(computation) -> str | None`` (``None`` when it can run it,
else the reason) and ``execute(computation, arguments, replicas=1, partitions=1) -> list[np.ndarray]``
(a tuple-shaped result comes back as its elements; a token as an empty pred array).

Several devices: with ``replicas * partitions == 1``, ``arguments`` is the argument list and the result
the result list. With R * P > 1 devices, ``arguments`` is a list of R * P per-device argument lists and the
result a list of R * P per-device results (each what a one-device execute returns), in the order of XLA's
global device id ``d = r * P + p`` (replica r, partition p). A backend with fewer devices raises
:class:`UnsupportedError` naming the count needed and the count available. Backends that
run Infeed and Outfeed also take ``infeed=[values]`` and ``outfeed=[]`` (a list the Outfeed
values are appended to; see :mod:`backend.runtime.host_io`). Built in: ``reference`` (NumPy, the oracle)
and ``jax`` (lowered to ``jax.lax``, jit-compiled once per computation). Third-party backends
plug in as ``module:attribute`` or through the ``xla_semantics.backends`` entry-point group.
The built-in backends take ``timeout=SECONDS`` too: a run that has not ended by then raises an
:class:`~backend.errors.ExecutionError` naming the op (see each backend's ``execute``).
Optionally, ``info() -> dict`` (or an ``info`` dict) says what conformance reports record about
the backend: ``version``, ``platform``, ``device`` and any other keys (kept as details).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from backend.errors import OpError, UnsupportedError
from backend.hlo import etypes
from backend.hlo.graph import XlaComputation
from backend.hlo.shape import Shape, runtime_size_mismatch
from backend.hlo.token import TOKEN


@runtime_checkable
class Backend(Protocol):
    name: str

    def supports(self, computation: XlaComputation) -> str | None: ...

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1,
                partitions: int = 1) -> list[Any]: ...


def check_timeout(computation: XlaComputation, timeout: Any) -> float | None:
    """``execute``'s ``timeout``: None (no limit), or seconds > 0 (``math.inf``: no deadline, but the
    run can be interrupted, Ctrl-C included); else an OpError."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float, np.integer, np.floating)) \
            or not timeout > 0:  # NaN fails the comparison too
        raise OpError(computation.name, "arguments", f"timeout must be a number of seconds > 0 (or None), got "
                      f"{timeout!r}", "timeout", {"timeout": repr(timeout)})
    return float(timeout)


def check_computation(computation: Any) -> XlaComputation:
    """``computation`` itself when it is an XlaComputation, else an OpError."""
    if not isinstance(computation, XlaComputation):
        raise OpError("execute", "arguments", "expected an XlaComputation (from XlaBuilder.build()), got "
                      f"{_describe(computation)}", "computation")
    return computation


def check_replicas(computation: XlaComputation, replicas: Any) -> int:
    """``replicas`` as an int >= 1, else an OpError."""
    if isinstance(replicas, bool) or not isinstance(replicas, (int, np.integer)) or replicas < 1:
        raise OpError(computation.name, "arguments", f"replicas must be an integer >= 1, got {replicas!r}",
                      "replicas", {"replicas": replicas})
    return int(replicas)


def check_partitions(computation: XlaComputation, partitions: Any) -> int:
    """``partitions`` as an int >= 1, else an OpError."""
    if isinstance(partitions, bool) or not isinstance(partitions, (int, np.integer)) or partitions < 1:
        raise OpError(computation.name, "arguments", f"partitions must be an integer >= 1, got {partitions!r}",
                      "partitions", {"partitions": partitions})
    return int(partitions)


def check_device_count(backend: str, computation: XlaComputation, needed: int, available: int,
                       hint: str = "") -> None:
    """An UnsupportedError when a run needs more devices than the backend has."""
    if needed > available:
        raise UnsupportedError(backend, computation.root_instruction.opcode,
                               f"the run needs {needed} devices (replicas x partitions) and {available} are "
                               f"available{hint}")


def per_device_arguments(computation: XlaComputation, arguments: Any, count: int,
                         check: Callable[[Any], Sequence[Any]]) -> list[Sequence[Any]]:
    """The ``count`` per-device argument lists of a multi-device execute, each checked by ``check``."""
    if isinstance(arguments, (str, bytes, dict, np.ndarray)) or not isinstance(arguments, Sequence) \
            or len(arguments) != count:
        got = f"{len(arguments)} entries" if isinstance(arguments, Sequence) and not isinstance(arguments, str) \
            else _describe(arguments)
        raise OpError(computation.name, "arguments", f"a run on {count} devices takes a list of {count} per-device "
                      f"argument lists (device d = replica * partitions + partition), got {got}", "arguments")
    checked = []
    for d, device_args in enumerate(arguments):
        try:
            checked.append(check(device_args))
        except OpError as e:
            raise OpError(e.op, e.constraint, f"device {d}: {e.detail}", e.arg, e.values) from None
    return checked


class ArgumentChecker:
    """Checks the arguments of one computation; its parameter shapes are worked out once.

    A list or tuple of arrays whose (dtype, shape) pairs equal the parameters' passes with one
    list comparison (the executors' hot path); anything else gets the full check.
    """

    def __init__(self, computation: XlaComputation) -> None:
        self.name = computation.name
        self.shapes = computation.program_shape().parameter_shapes()
        self.signature = [(s.numpy_dtype(), s.dimensions()) if s.is_array() else None for s in self.shapes]

    def __call__(self, arguments: Any) -> Sequence[Any]:
        if type(arguments) is list or type(arguments) is tuple:
            try:
                if [(v.dtype, v.shape) for v in arguments] == self.signature:
                    return arguments  # type: ignore[no-any-return]
            except AttributeError:  # not arrays: the full check says what they should be
                pass
        return self.full_check(arguments)

    def full_check(self, arguments: Any) -> list[Any]:
        if type(arguments) not in (list, tuple):
            arguments = _sequence(self.name, arguments)
        if len(arguments) != len(self.shapes):
            raise OpError(self.name, "arguments", f"expects {len(self.shapes)} arguments, got {len(arguments)}",
                          "arguments")
        return [_check_value(self.name, i, shape, value) for i, (shape, value) in enumerate(zip(self.shapes, arguments))]


def check_arguments(computation: XlaComputation, arguments: Sequence[Any]) -> list[Any]:
    """Arguments as NumPy values matching the computation's parameters, or an OpError."""
    return list(ArgumentChecker(check_computation(computation))(arguments))


def _describe(value: Any) -> str:
    return "None" if value is None else f"{type(value).__name__} {value!r}"[:120]


def _sequence(name: str, arguments: Any) -> Sequence[Any]:
    if isinstance(arguments, (str, bytes, dict, np.ndarray)) or not isinstance(arguments, Sequence):
        raise OpError(name, "arguments", f"arguments must be a list or tuple of values, got {_describe(arguments)}",
                      "arguments")
    return arguments


def _check_value(name: str, i: int, shape: Shape, value: Any) -> Any:
    if shape.is_token():  # a token carries no data: any value stands for it
        return TOKEN
    if shape.is_tuple():
        if not isinstance(value, (tuple, list)) or len(value) != len(shape.tuple_shapes()):
            raise OpError(name, "arguments", f"argument {i} must be a tuple of {len(shape.tuple_shapes())} "
                          f"values for {shape}, got {_describe(value)}", "arguments")
        return tuple(_check_value(name, i, s, v) for s, v in zip(shape.tuple_shapes(), value))
    try:
        arr = np.asarray(value)
        et = etypes.dtype_to_etype(arr.dtype)
    except Exception:  # ragged nesting, objects NumPy cannot hold, dtypes XLA has no type for
        raise OpError(name, "arguments", f"argument {i} must be {shape}, got {_describe(value)}",
                      "arguments") from None
    if et != shape.element_type() or runtime_size_mismatch(shape, arr.shape) is not None:
        raise OpError(name, "arguments", f"argument {i} must be {shape}, got {arr.dtype}{list(arr.shape)}",
                      "arguments")
    return arr


def flatten_result(value: Any, shape: Shape) -> list[Any]:
    if shape.is_tuple():
        return [v for v in value]
    return [value]


