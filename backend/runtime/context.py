"""What an evaluator, an implementation-defined mask function or a lowering may use of its ``ctx``.

:class:`OpRunContext` is that interface, as a protocol: the walker's :class:`~backend.runtime.walker.EvalContext`
is the concrete class, and :class:`ContextView` (an instruction seen as another: the collective a Start composes,
the wrapped computation of an AsyncStart) stands in for it. It is generic in what ``ctx.devices`` is: the
reference's evaluators see ``OpRunContext[backend.reference.devices.DeviceContext]`` (``backend.reference.
EvaluatorContext``), the jax lowerings ``OpRunContext[backend.jax_backend.devices.JaxDeviceContext]``
(``backend.jax_backend.LoweringContext``), and code shared by both ``OpRunContext[DeviceInfo]``, where
:class:`DeviceInfo` is what both backends' device contexts provide.

Shape rules do not run here: they take :class:`backend.rules.OpContext`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from backend.hlo.graph import Instruction, XlaComputation
    from backend.hlo.shape import Shape
    from backend.runtime.walker import TailCall


@runtime_checkable
class DeviceInfo(Protocol):
    """What every backend's ``ctx.devices`` provides: the device counts of the run.

    Beyond these, the reference's ``DeviceContext`` gives this device's ids as ints (``device_id``,
    ``replica_id``, ``partition_id``) and ``exchange(value, opcode)``; the jax backend's ``JaxDeviceContext``
    gives them as traced values (``device_id()``, ``replica_id()``, ``partition_id()``), ``axis_names``,
    ``gather_all(x)`` and ``table(values)``.
    """

    @property
    def replicas(self) -> int: ...

    @property
    def partitions(self) -> int: ...

    @property
    def count(self) -> int:
        """``replicas * partitions``."""
        ...


D = TypeVar("D", bound=DeviceInfo)
D_co = TypeVar("D_co", bound=DeviceInfo, covariant=True)


@runtime_checkable
class OpRunContext(Protocol[D_co]):
    """What an evaluator or a lowering sees besides its operand values (``ctx``)."""

    @property
    def inst(self) -> Instruction:
        """The instruction being run."""
        ...

    @property
    def attrs(self) -> dict[str, Any]:
        """Its attributes, by the spec's argument names."""
        ...

    @property
    def shape(self) -> Shape:
        """Its result shape."""
        ...

    @property
    def arguments(self) -> Sequence[Any]:
        """The arguments of the running computation (Parameter's values)."""
        ...

    @property
    def operand_shapes(self) -> Sequence[Shape]:
        """The static shapes of the operands, in instruction order (flat, not grouped)."""
        ...

    @property
    def backend(self) -> str:
        """The backend running the instruction (``reference``, ``jax``, ``pallas``...)."""
        ...

    @property
    def devices(self) -> D_co:
        """The device running the instruction and its collectives' exchange."""
        ...

    @property
    def channels(self) -> dict[int, list[Any]]:
        """The Send/Recv mailbox of the running computation: channel handle -> the values posted, not yet taken."""
        ...

    def attr(self, name: str) -> Any:
        """The attribute ``name``."""
        ...

    def call(self, computation: XlaComputation, args: Sequence[Any], shared: bool = False) -> Any:
        """Run a sub-computation on values of this backend's kind, now (``shared``: the backend may run it as
        one function shared by every use)."""
        ...

    def tail_call(self, computation: XlaComputation, args: Sequence[Any]) -> TailCall:
        """The instruction's value is ``computation`` run on ``args`` (return this from the evaluator)."""
        ...


class ContextView(Generic[D]):
    """``ctx`` seen as the context of another instruction: ``inst``, ``attrs`` and ``shape`` replaced where given
    (each defaults to ``ctx``'s own), everything else ``ctx``'s."""

    def __init__(self, ctx: OpRunContext[D], *, inst: Instruction | None = None,
                 attrs: dict[str, Any] | None = None, shape: Shape | None = None) -> None:
        self._ctx = ctx
        self.inst = ctx.inst if inst is None else inst
        self.attrs = ctx.attrs if attrs is None else attrs
        self.shape = ctx.shape if shape is None else shape

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    @property
    def arguments(self) -> Sequence[Any]:
        return self._ctx.arguments

    @property
    def operand_shapes(self) -> Sequence[Shape]:
        return self._ctx.operand_shapes

    @property
    def backend(self) -> str:
        return self._ctx.backend

    @property
    def devices(self) -> D:
        return self._ctx.devices

    @property
    def channels(self) -> dict[int, list[Any]]:
        return self._ctx.channels

    def call(self, computation: XlaComputation, args: Sequence[Any], shared: bool = False) -> Any:
        return self._ctx.call(computation, args, shared)

    def tail_call(self, computation: XlaComputation, args: Sequence[Any]) -> TailCall:
        return self._ctx.tail_call(computation, args)

