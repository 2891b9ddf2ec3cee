"""The ``jax`` backend: lowers a computation to ``jax.lax``, jit-compiles it once and caches it.

64-bit types work without touching the user's jax configuration: a computation with a 64-bit
value anywhere is traced and run under ``jax.enable_x64(True)``. One without is traced and run in
the caller's mode (its values have the same types in both), which keeps jax's C++ dispatch fast
path: switching the mode around every call costs several microseconds per call.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import jax
import numpy as np

from backend.errors import ExecutionError, OpError, UnsupportedError
from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.graph import XlaComputation
from backend.hlo.shape import Shape
from backend.jax_backend import LIMITATIONS, LOWERINGS, Limitation
from backend.jax_backend.devices import ENV_CPU_DEVICES, JaxDeviceContext, available_devices, mesh
from backend.jax_backend.resources import divergent_collective_reason, flattened_size_reason, memory_reason
from backend.registry import Registry
from backend.runtime.host_io import HOST_IO_OPCODES, HostIO, active_io
from backend.runtime.protocol import (
    ArgumentChecker,
    check_computation,
    check_device_count,
    check_partitions,
    check_replicas,
    check_timeout,
    per_device_arguments,
)
from backend.runtime.walker import FunctionTable, GraphWalker, RunTimeout

#: Element types XLA knows but jax cannot pass in or out of a computation.
UNSUPPORTED_TYPES = frozenset({PrimitiveType.S1, PrimitiveType.U1})
#: Element types jax holds only with ``jax_enable_x64`` on.
X64_TYPES = frozenset({PrimitiveType.F64, PrimitiveType.S64, PrimitiveType.U64, PrimitiveType.C128})
_CALLERS_MODE = contextlib.nullcontext()


def _leaf_shapes(shape: Shape) -> list[Shape]:
    """The array leaves of ``shape`` (tokens left out)."""
    return [leaf for leaf in shape.leaf_shapes() if leaf.is_array()]


class _TracingWalker(GraphWalker):
    """The walker of the jax backend: a sub-computation run by ``ctx.call(..., shared=True)`` (a While body,
    a branch)
    is a jitted function made once per computation, so jax traces it once per argument types, not
    once per use: nested branches that share a computation trace in linear, not exponential, time."""

    def __init__(self, backend: str, table: FunctionTable, devices: JaxDeviceContext | None = None) -> None:
        super().__init__(backend, table, devices or JaxDeviceContext())
        self._functions: weakref.WeakKeyDictionary[XlaComputation, Any] = weakref.WeakKeyDictionary()

    def run_nested(self, computation: XlaComputation, args: Sequence[Any]) -> Any:
        fn = self._functions.get(computation)
        if fn is None:
            fn = jax.jit(functools.partial(_run_weakly, self, weakref.ref(computation)))
            self._functions[computation] = fn
        return fn(*args)


def _run_weakly(walker: GraphWalker, computation: Any, *args: Any) -> Any:
    return walker.run(computation(), args)  # a weak reference: the cache must not keep the computation alive


def _to_host(x: jax.Array) -> np.ndarray:
    """A result of a multi-device run as one NumPy array: on several hosts (``jax.distributed.initialize``), every
    process gathers every device's part (a collective over the processes, which all run the same program)."""
    if x.is_fully_addressable:
        return np.asarray(x)
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(x, tiled=True))


class JaxBackend:
    name = "jax"

    def __init__(self, table: FunctionTable = LOWERINGS, device: Any = None, name: str = "jax",
                 limitations: Registry[Limitation] = LIMITATIONS) -> None:
        self.name = name
        self._limitations = limitations
        self._walker = _TracingWalker(name, table)
        self._table = table
        self._device = device
        # id(computation) -> its _Prepared, which holds a weak reference to the computation (a
        # WeakKeyDictionary look-up costs about 0.5 us, a tenth of a small computation's dispatch)
        self._cache: dict[int, _Prepared] = {}
        # (id(computation), replicas, partitions) -> the shard_map'ed function of a multi-device run
        self._multi: dict[Any, _Prepared] = {}

    @property
    def platform(self) -> str:
        return (self._device or jax.devices()[0]).platform

    def info(self) -> dict[str, str]:
        """What a conformance report records about this backend: jax's version and the device."""
        device = self._device or jax.devices()[0]
        return {"version": jax.__version__, "platform": device.platform, "device": device.device_kind,
                "devices": str(jax.device_count())}

    def supports(self, computation: XlaComputation) -> str | None:
        check_computation(computation)
        for comp, inst in ((c, i) for c in (*computation.subcomputations(), computation) for i in c.instructions):
            if inst.opcode not in self._table:
                return f"{inst.opcode} has no jax lowering"
            for shape in _leaf_shapes(inst.shape):
                if shape.element_type() in UNSUPPORTED_TYPES:
                    return (f"{inst.opcode}: jax cannot hold {etypes.short_name(shape.element_type())} arrays "
                            "(it stores them as pred)")
                if not shape.is_static():
                    return (f"{inst.opcode}: its result {shape} has a bounded-dynamic dimension, and jax.lax "
                            "arrays have static sizes (run it on the reference backend)")
            limit = self._limitations.get(inst.opcode)
            reason = limit(inst, [comp.instruction(o).shape for o in inst.operands]) if limit is not None else None
            if reason is not None:
                return f"{inst.opcode}: {reason}"
        # what XLA cannot run without ending the process
        return (flattened_size_reason(computation) or divergent_collective_reason(computation)
                or memory_reason(computation, self._device or jax.devices()[0]))

    def _prepared(self, computation: XlaComputation) -> _Prepared:
        """The cached jitted function and argument check; made once per computation, after
        ``supports()`` agreed (what it refuses, execute refuses too)."""
        prepared = self._cache.get(id(computation))
        if prepared is None or prepared.computation() is not computation:
            reason = self.supports(computation)
            if reason is not None:
                raise UnsupportedError(self.name, computation.root_instruction.opcode, reason)
            walker = self._walker

            def run(*args: Any) -> Any:
                return walker.run(computation, args)
            fn = jax.jit(run, device=self._device) if self._device is not None else jax.jit(run)
            prepared = _Prepared(computation, fn, self._cache)
            self._cache[id(computation)] = prepared
        return prepared

    def needs_x64(self, computation: XlaComputation) -> bool:
        """Whether the computation has 64-bit values (trace and run it under ``jax.enable_x64(True)``)."""
        return self._prepared(computation).x64

    def lower(self, computation: XlaComputation) -> Any:
        """The jitted function for a computation (created once, then cached); call it under
        ``jax.enable_x64(True)`` when the computation has 64-bit values."""
        return self._prepared(computation).fn

    def lower_devices(self, computation: XlaComputation, replicas: int, partitions: int = 1) -> Any:
        """The jitted ``shard_map`` of a run on ``replicas`` x ``partitions`` devices (created once per computation
        and device count, then cached): it takes each argument stacked as ``[replicas, partitions, *shape]`` and
        returns each result likewise (``execute`` does the stacking); call it under ``jax.enable_x64(True)`` when
        the computation has 64-bit values. ``.lower(*args).compile().as_text()`` shows the collectives XLA runs."""
        return self._prepared_devices(computation, replicas, partitions).fn

    def _prepared_devices(self, computation: XlaComputation, replicas: int, partitions: int) -> _Prepared:
        """The jitted shard_map of a run on replicas x partitions devices (made once per computation and count)."""
        key = (id(computation), replicas, partitions)
        prepared = self._multi.get(key)
        if prepared is not None and prepared.computation() is computation:
            return prepared
        reason = self.supports(computation)
        if reason is not None:
            raise UnsupportedError(self.name, computation.root_instruction.opcode, reason)
        hint = f" (set {ENV_CPU_DEVICES} before the first jax use for more host devices)" \
            if self.platform == "cpu" else ""
        check_device_count(self.name, computation, replicas * partitions, len(available_devices(self._device)), hint)
        walker = _TracingWalker(self.name, self._table, JaxDeviceContext(replicas, partitions))
        spec = jax.sharding.PartitionSpec(*walker.devices.axis_names)

        def run(*args: Any) -> Any:
            local = jax.tree_util.tree_map(lambda a: a[0, 0], args)
            out = walker.run(computation, local)
            return jax.tree_util.tree_map(lambda x: x[None, None], out)
        fn = jax.jit(jax.shard_map(run, mesh=mesh(replicas, partitions, self._device), in_specs=spec,
                                   out_specs=spec, check_vma=False))
        prepared = _Prepared(computation, fn, self._multi, key)
        self._multi[key] = prepared
        return prepared

    def _execute_devices(self, computation: XlaComputation, arguments: Any, replicas: int, partitions: int,
                         io: HostIO) -> list[Any]:
        prepared = self._prepared_devices(computation, replicas, partitions)
        count = replicas * partitions
        device_args = per_device_arguments(computation, arguments, count, prepared.check)
        stacked = [jax.tree_util.tree_map(lambda *xs: np.stack(xs).reshape(replicas, partitions, *np.shape(xs[0])),
                                          *(args[i] for args in device_args))
                   for i in range(len(prepared.check.shapes))]
        with self._running(computation, prepared, io):
            out = prepared.fn(*stacked)
            out = jax.tree_util.tree_map(_to_host, out)
            if prepared.host_io:
                jax.effects_barrier()
        flat = jax.tree_util.tree_map(lambda x: x.reshape(count, *x.shape[2:]), out)
        per_device = [jax.tree_util.tree_map(lambda x, d=d: x[d], flat) for d in range(count)]
        return [list(mine) if prepared.tuple_result else [mine] for mine in per_device]

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1,
                partitions: int = 1, *, infeed: Sequence[Any] = (), outfeed: list[Any] | None = None,
                timeout: float | None = None) -> list[Any]:
        """The results (per device when replicas * partitions > 1, see :mod:`backend.backends`); Infeed ops take
        the ``infeed`` values in order, Outfeed ops append to ``outfeed``.

        ``timeout`` (seconds, compiling included): the run goes to a worker thread and this call waits at most
        that long, then raises an :class:`ExecutionError` naming the op (the first While, else the root).
        XLA cannot cancel a running computation: the one left behind keeps running on its daemon thread
        (holding a core and its buffers) until it ends, and its result is dropped; the process can still
        exit. While waiting, Ctrl-C interrupts this call (``timeout=math.inf`` waits without a deadline
        but stays interruptible; without a timeout the call runs in the caller's thread, as fast as
        before, and XLA does not return to Python for Ctrl-C until it ends)."""
        if timeout is not None:
            seconds = check_timeout(check_computation(computation), timeout)
            return self._execute_abandonable(computation, seconds, functools.partial(
                self.execute, computation, arguments, replicas, partitions, infeed=infeed, outfeed=outfeed))
        if type(replicas) is not int or type(partitions) is not int or replicas != 1 or partitions != 1:  # True == 1
            check_computation(computation)
            count = check_replicas(computation, replicas) * check_partitions(computation, partitions)
            if count > 1:
                return self._execute_devices(computation, arguments, int(replicas), int(partitions),
                                             HostIO(infeed, outfeed))
        # The hot path (see benchmarks/dispatch.py): the cached preparation, the argument check
        # (three comparisons per NumPy argument of the right type), the jitted call.
        prepared = self._cache.get(id(computation))
        if prepared is None or prepared.computation() is not computation:
            prepared = self._prepared(computation)
        args = prepared.check(arguments)
        if prepared.host_io or infeed or outfeed is not None:
            return self._execute_with_io(computation, prepared, args, HostIO(infeed, outfeed))
        with jax.enable_x64(True) if prepared.x64 else _CALLERS_MODE:
            try:
                out = prepared.fn(*args)
                if prepared.tuple_result:
                    return [jax.tree_util.tree_map(np.asarray, v) for v in out]
                return [np.asarray(out)]
            except (OpError, UnsupportedError, ExecutionError):
                raise
            except Exception as e:  # compile or runtime failure inside XLA: a failure, not a refusal
                raise ExecutionError(self.name, computation.root_instruction.opcode, e) from e


    def _execute_abandonable(self, computation: XlaComputation, seconds: float | None,
                             run: Callable[[], list[Any]]) -> list[Any]:
        """``run()`` on a daemon thread, waited for at most ``seconds`` (interruptibly)."""
        x64 = bool(jax.config.jax_enable_x64)  # the caller's mode, which is per thread
        outcome: list[Any] = []
        done = threading.Event()

        def work() -> None:
            try:
                with jax.enable_x64(x64):
                    outcome.append((True, run()))
            except BaseException as e:  # noqa: BLE001 - handed to the waiting caller
                outcome.append((False, e))
            finally:
                done.set()
        threading.Thread(target=work, name=f"{self.name}-run-{computation.name}", daemon=True).start()
        deadline = None if seconds is None or math.isinf(seconds) else time.monotonic() + seconds
        while not done.is_set():
            left = 0.25 if deadline is None else min(0.25, deadline - time.monotonic())
            if left <= 0:
                loops = [i for c in (computation, *computation.subcomputations()) for i in c.instructions
                         if i.opcode == "While"]
                opcode = loops[0].opcode if loops else computation.root_instruction.opcode
                raise ExecutionError(self.name, opcode, RunTimeout(
                    f"the run did not end within its timeout of {seconds:g} s (it is left running on a "
                    "background thread until it ends; its result is dropped)"))
            done.wait(left)
        ok, value = outcome[0]
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    def execute_batch(self, items: Sequence[tuple[XlaComputation, Sequence[Any]]]) -> list[list[Any] | Exception]:
        """Runs each ``(computation, arguments)`` pair, compiled together as one program: one trace, one
        lowering and one XLA compilation for all, which for small computations costs a fraction of
        compiling each alone. The results come in order; an item that fails gets the exception
        ``execute`` raises for it alone (items with host I/O, and any item of a program that fails as a
        whole, run one by one through ``execute``). A subclass that overrides ``execute`` has every item
        run through its ``execute``."""
        items = _batch_items(items)
        results: list[list[Any] | Exception | None] = [None] * len(items)
        together: dict[bool, list[tuple[int, _Prepared, Sequence[Any]]]] = {False: [], True: []}
        for k, (computation, arguments) in enumerate(items):
            try:
                prepared = self._cache.get(id(computation))
                if prepared is None or prepared.computation() is not computation:
                    prepared = self._prepared(computation)
                args = prepared.check(arguments)
            except Exception as e:  # refused or wrong arguments: as execute() would raise it
                results[k] = e
                continue
            if type(self).execute is JaxBackend.execute and not prepared.host_io:
                together[prepared.x64].append((k, prepared, args))
        for x64, group in together.items():
            if len(group) > 1:
                self._run_together(group, x64, results)
        for k, (computation, arguments) in enumerate(items):
            if results[k] is None:
                try:
                    results[k] = self.execute(computation, arguments)
                except Exception as e:
                    results[k] = e
        return results  # type: ignore[return-value]

    def _run_together(self, group: list[tuple[int, _Prepared, Sequence[Any]]], x64: bool,
                      results: list[Any]) -> None:
        """Fills ``results`` for ``group``'s items from one jitted function running them all (nothing,
        when that program fails: its items then run one by one)."""
        walker = self._walker
        computations = [prepared.computation() for _, prepared, _ in group]
        counts = [len(args) for _, _, args in group]

        def run(*flat: Any) -> list[Any]:
            outs, start = [], 0
            for computation, count in zip(computations, counts):
                outs.append(walker.run(computation, flat[start:start + count]))
                start += count
            return outs
        fn = jax.jit(run, device=self._device) if self._device is not None else jax.jit(run)
        with jax.enable_x64(True) if x64 else _CALLERS_MODE:
            try:
                outs = fn(*(a for _, _, args in group for a in args))
                for (k, prepared, _), out in zip(group, outs):
                    results[k] = ([jax.tree_util.tree_map(np.asarray, v) for v in out] if prepared.tuple_result
                                  else [np.asarray(out)])
            except Exception:  # noqa: BLE001 - each item runs alone, which reports its own error
                for k, _, _ in group:
                    results[k] = None

    def _execute_with_io(self, computation: XlaComputation, prepared: _Prepared, args: Sequence[Any],
                         io: HostIO) -> list[Any]:
        """A run with host callbacks: they read and fill ``io`` until every effect is done; an error
        raised inside a callback (an exhausted infeed) is raised as itself."""
        with self._running(computation, prepared, io):
            out = prepared.fn(*args)
            results = [jax.tree_util.tree_map(np.asarray, v) for v in out] if prepared.tuple_result \
                else [np.asarray(out)]
            jax.effects_barrier()
            return results

    @contextlib.contextmanager
    def _running(self, computation: XlaComputation, prepared: _Prepared, io: HostIO) -> Iterator[None]:
        """A run of ``prepared`` with ``io`` active and its 64-bit mode: an error raised inside a host callback
        (an exhausted infeed) is raised as itself, any other failure as an ExecutionError naming the op."""
        with active_io(io), jax.enable_x64(True) if prepared.x64 else _CALLERS_MODE:
            try:
                yield
            except (OpError, UnsupportedError, ExecutionError):
                raise
            except Exception as e:
                if io.error is not None:
                    raise io.error from None
                raise ExecutionError(self.name, computation.root_instruction.opcode, e) from e


def _batch_items(items: Any) -> list[tuple[Any, Any]]:
    """``execute_batch``'s items as a list of pairs, else an OpError naming the item."""
    if isinstance(items, (str, bytes, dict)) or not isinstance(items, Iterable):
        raise OpError("execute_batch", "arguments", f"items must be a sequence of (computation, arguments) pairs, "
                      f"got {type(items).__name__}", "items")
    out = []
    for k, item in enumerate(items):
        if isinstance(item, (str, bytes, dict)) or not isinstance(item, Sequence) or len(item) != 2:
            raise OpError("execute_batch", "arguments", f"item {k} must be a (computation, arguments) pair, got "
                          f"{repr(item)[:80]}", "items")
        out.append((item[0], item[1]))
    return out


class _Prepared:
    """What execute needs for one computation: the jitted function and the argument check."""

    __slots__ = ("check", "computation", "fn", "host_io", "tuple_result", "x64")

    def __init__(self, computation: XlaComputation, fn: Any, cache: dict[Any, _Prepared], key: Any = None) -> None:
        key = id(computation) if key is None else key

        def forget(_: Any) -> None:  # the computation is gone: drop its entry (unless already replaced)
            if cache.get(key) is self:
                del cache[key]
        self.computation = weakref.ref(computation, forget)
        self.fn = fn
        self.check = ArgumentChecker(computation)
        self.tuple_result = computation.root_instruction.shape.is_tuple()
        self.x64 = _needs_x64(computation)
        self.host_io = any(inst.opcode in HOST_IO_OPCODES for comp in (computation, *computation.subcomputations())
                           for inst in comp.instructions)


def _needs_x64(computation: XlaComputation) -> bool:
    """Whether any value of the computation (or of a sub-computation) has a 64-bit type."""
    return any(leaf.element_type() in X64_TYPES for comp in (computation, *computation.subcomputations())
               for inst in comp.instructions for leaf in _leaf_shapes(inst.shape))
