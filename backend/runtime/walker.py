"""The one graph walker shared by the reference interpreter and the jax lowering.

Each instruction is evaluated by the function registered for its opcode in a table; the
function gets an :class:`EvalContext` and the operand values grouped by the spec's arguments.

Calls do not consume the Python stack: an evaluator that returns ``ctx.tail_call(computation,
args)`` (Call, CompositeCall, the reference's Conditional) has the walker push a frame on its own
explicit stack, so a chain of nested calls runs to any depth. Sub-computations an op runs several
times or inside a jax primitive (While's body, a lax.cond branch) go through ``ctx.call``, which
recurses (with the Python recursion limit raised to :data:`NESTED_RECURSION_LIMIT` meanwhile); their
nesting is limited to :data:`MAX_NESTED_CALLS`, an :class:`UnsupportedError` past it.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from backend.errors import ExecutionError, OpError, UnsupportedError
from backend.hlo.graph import Instruction, XlaComputation
from backend.hlo.shape import Shape

#: How deeply ``ctx.call`` (the recursive kind of sub-computation call) may nest.
MAX_NESTED_CALLS = 64
#: The Python recursion limit while ``ctx.call`` calls are nested: tracing one level of lax.while_loop /
#: lax.cond takes about 40 Python frames, so MAX_NESTED_CALLS levels need more than Python's default 1000.
NESTED_RECURSION_LIMIT = 10_000


class RunTimeout(TimeoutError):
    """What a run's timeout raises, as the cause of an :class:`ExecutionError` naming the op."""


def timeout_error(backend: str, running: Sequence[Instruction], inst: Instruction | None,
                  timeout: float | None) -> ExecutionError:
    """The error of a run stopped by its timeout: it names the outermost op running (a While) and the one
    the deadline caught inside it."""
    outer = running[0] if running else inst
    where = f" (at {inst.opcode} inside it)" if inst is not None and outer is not inst else ""
    opcode = outer.opcode if outer is not None else "execute"
    error = RunTimeout(f"the run did not end within its timeout of {timeout:g} s{where}")
    return ExecutionError(backend, opcode, error)


class TailCall:
    """An evaluator's request: this instruction's value is ``computation`` run on ``args``."""

    __slots__ = ("computation", "args")

    def __init__(self, computation: XlaComputation, args: Sequence[Any]) -> None:
        self.computation = computation
        self.args = args


class FunctionTable(Protocol):
    """The per-op functions a walker runs (a :class:`~backend.registry.Registry`, or the Pallas overlay of two)."""

    def get(self, name: str) -> Callable[..., Any] | None: ...

    def __contains__(self, name: str) -> bool: ...


class EvalContext:
    """What an evaluator or lowering sees besides its operand values: the concrete
    :class:`~backend.runtime.context.OpRunContext`."""

    def __init__(self, inst: Instruction, walker: GraphWalker, arguments: Sequence[Any],
                 operand_shapes: Sequence[Shape] = ()) -> None:
        self.inst = inst
        self.attrs = inst.attrs
        self.shape = inst.shape
        self.arguments = arguments
        #: The static shapes of the operands, in instruction order (flat, not grouped).
        self.operand_shapes = tuple(operand_shapes)
        #: The backend running the instruction (``reference``, ``jax``, ``pallas``...).
        self.backend = walker.backend
        #: The device running the instruction and its collectives' exchange (``backend.reference.devices.DeviceContext``
        #: on the reference, ``backend.jax_backend.devices.JaxDeviceContext`` on jax).
        self.devices = walker.devices
        #: The point-to-point transfers of the running computation: channel handle -> the values its Sends
        #: posted that no RecvDone has taken yet (one mailbox per ``GraphWalker.run``, see there).
        self.channels = walker.channels
        self._walker = walker

    def attr(self, name: str) -> Any:
        return self.attrs[name]

    def call(self, computation: XlaComputation, args: Sequence[Any], shared: bool = False) -> Any:
        """Run a sub-computation on values of this walker's kind (now, recursively). ``shared``: the
        backend may run it as one function shared by every use (the jax backend traces a loop body or
        a branch once per computation that way)."""
        walker = self._walker
        if walker.nested_calls >= MAX_NESTED_CALLS:
            raise UnsupportedError(walker.backend, self.inst.opcode,
                                   f"sub-computations run by loops and branches nest deeper than {MAX_NESTED_CALLS} "
                                   "levels (plain Call chains have no such limit)")
        limit = sys.getrecursionlimit()
        if walker.nested_calls == 0 and limit < NESTED_RECURSION_LIMIT:
            sys.setrecursionlimit(NESTED_RECURSION_LIMIT)  # restored when the outermost nested call returns
        walker.nested_calls += 1
        try:
            return walker.run_nested(computation, args) if shared else walker.run(computation, args)
        finally:
            walker.nested_calls -= 1
            if walker.nested_calls == 0:
                sys.setrecursionlimit(limit)

    def tail_call(self, computation: XlaComputation, args: Sequence[Any]) -> TailCall:
        """The value of this instruction is ``computation`` run on ``args``: the walker runs it on its
        own frame stack (return this from the evaluator)."""
        return TailCall(computation, args)


class _Frame:
    __slots__ = ("computation", "args", "values", "next")

    def __init__(self, computation: XlaComputation, args: Sequence[Any]) -> None:
        self.computation = computation
        self.args = args
        self.values: dict[int, Any] = {}
        self.next = 0


class GraphWalker:
    def __init__(self, backend: str, table: FunctionTable, devices: Any = None) -> None:
        self.backend = backend
        self.table = table
        self.nested_calls = 0
        #: What ``ctx.devices`` is: the device this walker runs on (set by the backend).
        self.devices = devices
        #: What ``ctx.channels`` is: the Send/Recv mailbox of the innermost ``run`` (its computation and those
        #: it tail-calls share it; a sub-computation run by ``ctx.call``, a loop body or a branch, has its own).
        self.channels: dict[int, list[Any]] = {}
        #: Called with each instruction before it runs, when set: it raises to stop the run (the reference's
        #: timeout and a failed rendezvous of its devices; see :meth:`stop_after`).
        self.interrupt: Callable[[Instruction], None] | None = None
        #: The instructions running now, outermost first (a While, then the ops of its body...).
        self.running: list[Instruction] = []

    def stop_after(self, timeout: float | None, also: Callable[[], None] | None = None) -> None:
        """Stop the runs that follow with an :class:`ExecutionError` once ``timeout`` seconds have passed
        (``None``: no deadline), naming the outermost op running and the one the deadline caught;
        ``also()`` is called with each instruction too (it raises to stop the run)."""
        if timeout is None and also is None:
            self.interrupt = None
            return
        limited = timeout is not None and not math.isinf(timeout)
        deadline: list[float] = []  # set at the first instruction (after the table has loaded its modules)

        def interrupt(inst: Instruction) -> None:
            if also is not None:
                also()
            if limited:
                now = time.monotonic()
                if not deadline:
                    deadline.append(now + timeout)  # type: ignore[operator]
                elif now > deadline[0]:
                    raise timeout_error(self.backend, self.running, inst, timeout)
        self.interrupt = interrupt

    def run(self, computation: XlaComputation, args: Sequence[Any]) -> Any:
        outer, self.channels = self.channels, {}
        try:
            return self._run_frames(computation, args)
        finally:
            self.channels = outer

    def _run_frames(self, computation: XlaComputation, args: Sequence[Any]) -> Any:
        frames = [_Frame(computation, args)]
        while True:
            frame = frames[-1]
            instructions = frame.computation.instructions
            if frame.next == len(instructions):  # the frame is done: its root is the caller's value
                result = frame.values[frame.computation.root]
                frames.pop()
                if not frames:
                    return result
                caller = frames[-1]
                caller.values[caller.computation.instructions[caller.next].id] = result
                caller.next += 1
                continue
            inst = instructions[frame.next]
            value = self._instruction_value(frame, inst)
            if isinstance(value, TailCall):
                frames.append(_Frame(value.computation, value.args))
                continue
            frame.values[inst.id] = value
            frame.next += 1

    def run_nested(self, computation: XlaComputation, args: Sequence[Any]) -> Any:
        """A sub-computation run by ``ctx.call(..., shared=True)`` (a hook: the jax backend traces each
        computation once)."""
        return self.run(computation, args)

    def _instruction_value(self, frame: _Frame, inst: Instruction) -> Any:
        fn = self.table.get(inst.opcode)
        if fn is None:
            raise UnsupportedError(self.backend, inst.opcode, "no implementation registered")
        values, computation = frame.values, frame.computation
        operands = inst.grouped([values[o] for o in inst.operands])
        ctx = EvalContext(inst, self, frame.args, [computation.instruction(o).shape for o in inst.operands])
        if self.interrupt is not None:
            self.interrupt(inst)
        self.running.append(inst)
        try:
            return self.evaluate(fn, ctx, operands)
        except (OpError, UnsupportedError, ExecutionError):
            raise
        except Exception as e:  # a bug, not a refusal: name the op, keep the cause
            raise ExecutionError(self.backend, inst.opcode, e) from e
        finally:
            self.running.pop()

    def evaluate(self, fn: Callable[..., Any], ctx: EvalContext, operands: list[Any]) -> Any:
        """One instruction's value (a hook: the reference backend adds runtime-size handling)."""
        return fn(ctx, *operands)
