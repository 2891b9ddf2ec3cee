"""The reference backend's devices: one thread per device, and the rendezvous of its collectives.

Each device runs the computation in its own thread; an evaluator of a collective calls
``ctx.devices.exchange(value)``, which blocks until every device has reached the same collective
instance (the n-th collective each device executes, with the same opcode) and returns all devices'
values in device order. A device that never gets there (a loop running more often on one device)
is an :class:`ExecutionError` naming the op and the devices waiting: at once when every other device
has finished or waits elsewhere, after ``timeout`` seconds otherwise; never a hang.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from backend.errors import ExecutionError, UnsupportedError
from backend.runtime.walker import RunTimeout

#: Seconds a device waits at a rendezvous before the execution fails.
DEFAULT_TIMEOUT = 60.0


class _Aborted(Exception):
    """Another device failed: this one stops waiting (the other device's error is the one reported)."""


class Rendezvous:
    """The meeting point of ``count`` device threads."""

    def __init__(self, backend: str, count: int, timeout: float = DEFAULT_TIMEOUT,
                 run_timeout: float | None = None) -> None:
        self.backend = backend
        self.count = count
        self.timeout = timeout
        #: The run's own timeout (``execute(..., timeout=)``): no device waits past it.
        self.run_timeout = run_timeout
        self.run_deadline = None if run_timeout is None or math.isinf(run_timeout) \
            else time.monotonic() + run_timeout
        self._cond = threading.Condition()
        self._slots: dict[tuple[int, str], dict[int, Any]] = {}
        self._done: dict[tuple[int, str], list[Any]] = {}
        self._read: dict[tuple[int, str], int] = {}
        self._waiting: dict[int, tuple[int, str]] = {}
        self._finished: set[int] = set()
        self.failed = False

    def exchange(self, device: int, key: tuple[int, str], value: Any) -> list[Any]:
        deadline = time.monotonic() + self.timeout
        if self.run_deadline is not None and self.run_deadline < deadline:
            deadline = self.run_deadline
        with self._cond:
            slots = self._slots.setdefault(key, {})
            slots[device] = value
            if len(slots) == self.count:
                self._done[key] = [slots[d] for d in range(self.count)]
                del self._slots[key]
                self._cond.notify_all()
            self._waiting[device] = key
            try:
                while key not in self._done:
                    if self.failed:
                        raise _Aborted()
                    stuck = sum(1 for k in self._waiting.values() if k not in self._done)
                    if stuck + len(self._finished) == self.count or time.monotonic() >= deadline:
                        self._fail_waiting(key)
                    self._cond.wait(min(0.5, max(0.0, deadline - time.monotonic())))
            finally:
                del self._waiting[device]
            values = self._done[key]
            self._read[key] = self._read.get(key, 0) + 1
            if self._read[key] == self.count:
                del self._done[key], self._read[key]
            return values

    def _fail_waiting(self, key: tuple[int, str]) -> None:
        number, opcode = key
        here = sorted(d for d, k in self._waiting.items() if k == key)
        elsewhere = {d: f"{k[1]} #{k[0]}" for d, k in sorted(self._waiting.items()) if k != key}
        missing = sorted(set(range(self.count)) - set(here))
        where = ", ".join(f"device {d} at {w}" for d, w in elsewhere.items())
        done = f"; devices {sorted(self._finished)} finished the program" if self._finished else ""
        stuck = sum(1 for k in self._waiting.values() if k not in self._done) + len(self._finished) == self.count
        error: Exception
        if not stuck and self.run_deadline is not None and time.monotonic() >= self.run_deadline:
            error = RunTimeout(f"the run did not end within its timeout of {self.run_timeout:g} s: devices {here} "
                               f"wait at collective #{number} ({opcode}) for devices {missing}" +
                               (f" ({where})" if where else "") + done)
        else:
            error = RuntimeError(f"devices {here} wait at collective #{number} ({opcode}) for devices {missing}, "
                                 f"which never reach it" + (f" ({where})" if where else "") + done +
                                 " (every device must execute the same collectives in the same order)")
        self.failed = True
        self._cond.notify_all()
        raise ExecutionError(self.backend, opcode, error)

    def finish(self, device: int) -> None:
        with self._cond:
            self._finished.add(device)
            self._cond.notify_all()

    def abort(self) -> None:
        with self._cond:
            self.failed = True
            self._cond.notify_all()


class DeviceContext:
    """``ctx.devices`` in a reference evaluator: which device runs it, and the rendezvous with the others."""

    def __init__(self, replicas: int = 1, partitions: int = 1, device_id: int = 0,
                 rendezvous: Rendezvous | None = None) -> None:
        self.replicas = replicas
        self.partitions = partitions
        self.device_id = device_id
        self.replica_id = device_id // partitions
        self.partition_id = device_id % partitions
        self._rendezvous = rendezvous
        self._executed = 0

    @property
    def count(self) -> int:
        return self.replicas * self.partitions

    def check_aborted(self) -> None:
        """Raises when another device has failed (this one stops too: its error is not the one reported)."""
        if self._rendezvous is not None and self._rendezvous.failed:
            raise _Aborted()

    def exchange(self, value: Any, opcode: str = "collective") -> list[Any]:
        """Every device's ``value`` of this collective instance, in device order (``[value]`` on one device)."""
        number = self._executed
        self._executed += 1
        if self._rendezvous is None:
            return [value]
        return self._rendezvous.exchange(self.device_id, (number, opcode), value)


def is_aborted(error: BaseException) -> bool:
    return isinstance(error, _Aborted) or isinstance(getattr(error, "__cause__", None), _Aborted)


def run_on_devices(backend: str, replicas: int, partitions: int, work: Callable[[DeviceContext], Any],
                   timeout: float = DEFAULT_TIMEOUT, run_timeout: float | None = None) -> list[Any]:
    """``work(device)`` for every device, one thread each, meeting at their collectives; the results in device
    order. The first real error of a device (not another device's abort) is raised as itself. ``timeout`` is
    how long a device waits at a collective, ``run_timeout`` the run's own limit (no wait goes past it)."""
    count = replicas * partitions
    rendezvous = Rendezvous(backend, count, timeout, run_timeout)
    results: list[Any] = [None] * count
    errors: list[BaseException | None] = [None] * count

    def run(device: int) -> None:
        try:
            results[device] = work(DeviceContext(replicas, partitions, device, rendezvous))
            rendezvous.finish(device)
        except BaseException as e:  # noqa: BLE001 (re-raised below, in the caller's thread)
            errors[device] = e
            rendezvous.abort()

    threads = [threading.Thread(target=run, args=(d,), name=f"{backend}-device-{d}", daemon=True)
               for d in range(count)]
    started = []
    try:
        for t in threads:
            t.start()
            started.append(t)
    except RuntimeError as e:  # the process cannot start another thread
        rendezvous.abort()
        for t in started:
            t.join()
        raise UnsupportedError(backend, "execute", f"the run needs {count} device threads and only {len(started)} "
                               f"could be started ({e})") from None
    for t in started:
        t.join()
    real = [e for e in errors if e is not None and not is_aborted(e)]
    if real:
        raise real[0]
    return results
