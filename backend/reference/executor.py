"""The ``reference`` backend: runs a computation with the NumPy evaluators (the oracle).

Programs with bounded-dynamic dimensions run here with runtime-sized values (see
:mod:`backend.reference.dynamic_shape`): the walker aligns the operands of element-wise ops to
their runtime sizes and checks every value against its static shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from backend.errors import UnsupportedError
from backend.hlo.graph import XlaComputation
from backend.reference import EVALUATORS
from backend.reference.devices import DEFAULT_TIMEOUT, DeviceContext, run_on_devices
from backend.reference.dynamic_shape import align_runtime_sizes, check_runtime_value, unsupported_reason
from backend.runtime.custom_calls import missing_target_reason
from backend.runtime.host_io import HostIO, active_io
from backend.runtime.protocol import (
    ArgumentChecker,
    check_computation,
    check_partitions,
    check_replicas,
    check_timeout,
    flatten_result,
    per_device_arguments,
)
from backend.runtime.walker import EvalContext, GraphWalker, TailCall

#: The most devices (threads) the reference simulates in one run.
MAX_DEVICES = 1024


class RuntimeSizedWalker(GraphWalker):
    """The graph walker with runtime sizes: values of dynamic shapes are arrays of their runtime size."""

    def evaluate(self, fn: Any, ctx: EvalContext, operands: list[Any]) -> Any:
        value = self._evaluate(fn, ctx, operands)
        # NumPy gives scalars, not 0-d arrays, for some rank-0 results; the next op may assign into
        # its operand's copy (DynamicUpdateSlice of a rank-0 Max crashed; found by the fuzzer).
        return value if isinstance(value, (tuple, list, TailCall)) else np.asarray(value)

    def _evaluate(self, fn: Any, ctx: EvalContext, operands: list[Any]) -> Any:
        if ctx.shape.is_static() and all(s.is_static() for s in ctx.operand_shapes):
            return fn(ctx, *operands)
        reason = unsupported_reason(ctx.inst.opcode, list(ctx.operand_shapes), ctx.shape)
        if reason:
            raise UnsupportedError(self.backend, ctx.inst.opcode, reason)
        value = fn(ctx, *align_runtime_sizes(ctx, operands))
        check_runtime_value(ctx, value)
        return value


class ReferenceBackend:
    """The NumPy oracle. Several devices run as one thread each (see :mod:`backend.reference.devices`);
    ``rendezvous_timeout`` is how long a device waits for the others at a collective."""

    name = "reference"

    def __init__(self, rendezvous_timeout: float = DEFAULT_TIMEOUT) -> None:
        self._walker = RuntimeSizedWalker(self.name, EVALUATORS, DeviceContext())
        self.rendezvous_timeout = rendezvous_timeout

    def info(self) -> dict[str, str]:
        """What a conformance report records about this backend: NumPy on the host."""
        return {"version": f"numpy {np.__version__}", "platform": "cpu", "device": "host"}

    def supports(self, computation: XlaComputation) -> str | None:
        for comp in [*check_computation(computation).subcomputations(), computation]:
            for inst in comp.instructions:
                if inst.opcode not in EVALUATORS:
                    return f"{inst.opcode} has no reference evaluator"
                reason = unsupported_reason(inst.opcode, [comp.instruction(o).shape for o in inst.operands],
                                            inst.shape)
                if reason:
                    return reason
                if "call_target_name" in inst.attrs:
                    reason = missing_target_reason(inst.attrs["call_target_name"], self.name)
                    if reason:
                        return f"{inst.opcode}: {reason}"
        return None

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1,
                partitions: int = 1, *, infeed: Sequence[Any] = (), outfeed: list[Any] | None = None,
                timeout: float | None = None) -> list[Any]:
        """The results (per device when replicas * partitions > 1, see :mod:`backend.backends`); Infeed ops take
        the ``infeed`` values in order, Outfeed ops append to ``outfeed``.

        ``timeout`` (seconds): the walker checks the clock before each instruction, and a run still going
        then stops with an :class:`ExecutionError` naming the outermost op running (a ``While(true)``) and
        the op inside it; on several devices every device stops, and a device waiting at a collective
        waits no longer than the timeout. An op that takes long by itself (one huge Sort) is stopped
        after it ends."""
        check = ArgumentChecker(check_computation(computation))
        count = check_replicas(computation, replicas) * check_partitions(computation, partitions)
        seconds = check_timeout(computation, timeout)
        if count == 1:
            args = list(check(arguments))
            walker = self._walker if seconds is None else RuntimeSizedWalker(self.name, EVALUATORS, DeviceContext())
            walker.stop_after(seconds)
            with active_io(HostIO(infeed, outfeed)):
                result = walker.run(computation, args)
            return flatten_result(result, computation.root_instruction.shape)
        if count > MAX_DEVICES:
            raise UnsupportedError(self.name, computation.root_instruction.opcode,
                                   f"the run needs {count} devices (replicas x partitions) and the reference "
                                   f"simulates at most {MAX_DEVICES}")
        device_args = per_device_arguments(computation, arguments, count, check)
        with active_io(HostIO(infeed, outfeed)):
            return self._run_devices(computation, device_args, int(replicas), int(partitions), seconds)

    def _run_devices(self, computation: XlaComputation, device_args: list[Sequence[Any]], replicas: int,
                     partitions: int, timeout: float | None) -> list[Any]:
        def work(device: DeviceContext) -> list[Any]:
            walker = RuntimeSizedWalker(self.name, EVALUATORS, device)
            # a device stops when the run's timeout passes, or when another device failed (one spinning in a
            # loop while another waits at a collective ends when the wait fails, not never)
            walker.stop_after(timeout, device.check_aborted)
            return flatten_result(walker.run(computation, list(device_args[device.device_id])),
                                  computation.root_instruction.shape)
        return run_on_devices(self.name, replicas, partitions, work, self.rendezvous_timeout, timeout)
