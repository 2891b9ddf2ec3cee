"""Runs cases in worker processes, so that a backend that crashes, hangs or exits loses only one case.

Each worker is a fresh (spawned) Python process that loads the backend by its name (``jax``, an
entry point, or ``module:attribute``) and runs the batches of cases it is sent with
:func:`conformance.runner.run_batch`, sending each result as it comes. The parent hands out batches,
waits for results, and watches each worker: a batch whose worker dies (``os.abort``, a segfault,
``os._exit``) or sends nothing for longer than the time limit is run again one case at a time; a
case that kills its worker alone is recorded as ``crashed``, one that runs past the limit alone is
killed and recorded as ``timed out``. Either way a new worker takes its place and the run goes on.

The backend is constructed only in workers: :func:`start_backend` starts the first one and waits until it has
loaded the backend, so that a constructor that aborts or raises is a :class:`WorkerStartError` naming the backend
and how its process ended, never the end of the calling process; the run then takes that worker as its first.
A worker never outlives the process that started it: it asks the kernel to kill it when its parent dies (Linux,
``PR_SET_PDEATHSIG``) and, everywhere, a watchdog thread ends it once its parent is gone, so a SIGTERM or SIGKILL
to the command line leaves no worker running a case.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

from conformance.build import reproduction
from conformance.cases import Case
from conformance.outcomes import SPEC, check_profile
from conformance.runner import CRASHED, DEFAULT_BATCH_SIZE, TIMED_OUT, Result, batches

#: Seconds one case may run before its worker is killed (compiling a large case can take a while).
DEFAULT_TIMEOUT = 120.0
#: Seconds a new worker may take to start and load its backend (importing jax, reading the specs).
STARTUP_TIMEOUT = 300.0

_CONTEXT = multiprocessing.get_context("spawn")  # forking a process that has started jax is unsafe


class WorkerStartError(RuntimeError):
    """A worker could not load the backend: every case would fail the same way, so the run stops."""


#: Seconds between two checks of the worker's watchdog that its parent is still there.
_WATCHDOG_PERIOD = 0.5


def die_with_parent(parent_pid: int) -> None:
    """End this worker when the process that started it ends (however it ends): the kernel's parent-death signal
    where there is one (Linux), and a watchdog thread polling the parent everywhere."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:  # the parent is gone: this process was re-parented
                os._exit(70)
            time.sleep(_WATCHDOG_PERIOD)

    if os.getppid() != parent_pid:
        os._exit(70)
    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _worker_main(conn: Connection, backend_name: str, profile: str, parent_pid: int | None = None) -> None:
    """The worker's loop: load the backend, then run each batch of cases it is sent until told to stop,
    sending each case's result as soon as it has it."""
    if parent_pid is not None:
        die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    import specs
    from backend.backends import get_backend
    from conformance.compile_cache import enable_compilation_cache
    from conformance.report import backend_info
    from conformance.runner import clean_text, run_batch

    try:
        enable_compilation_cache()
        backend = get_backend(backend_name)
        specs.load_all()  # start-up work, not counted against the first case's time limit
        info = backend_info(backend)
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which stops the run
        conn.send(("error", clean_text(f"{type(e).__name__}: {e}")))
        return
    conn.send(("ready", info))
    while True:
        message = conn.recv()
        if message is None:
            return
        try:
            cases = [case for _, case in message]
            for (index, _), r in zip(message, run_batch(cases, backend, profile, backend_name)):
                conn.send(("result", (index, r.status, r.message, r.reproduction, r.seconds, r.chosen, r.program)))
        except Exception as e:  # the suite's own code raised (run_batch turns the backend's errors into results)
            conn.send(("suite_error", "".join(traceback.format_exception(e, limit=-4)).strip()))
            raise


def describe_exit(exitcode: int | None) -> str:
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exited with status {exitcode}"


class Worker:
    """One worker process and the batch of cases it is running (``task``: the cases of the batch
    without a result yet, by index, and when the last result came)."""

    def __init__(self, backend_name: str, profile: str = SPEC) -> None:
        self.conn, child = _CONTEXT.Pipe()
        self.backend_name = backend_name
        self.process = _CONTEXT.Process(target=_worker_main, args=(child, backend_name, profile, os.getpid()),
                                        daemon=True, name="conformance-worker")
        self.process.start()
        child.close()
        self.started = time.monotonic()
        self.ready = False
        self.task: tuple[dict[int, Case], float] | None = None
        self._pending: list[tuple[int, Case]] | None = None
        self.suite_error: str | None = None  # the traceback of the suite's own code, when it raised in the worker
        self.backend_info: dict[str, Any] | None = None  # the backend's name, version, ... once it has loaded it

    def assign(self, batch: list[tuple[int, Case]]) -> None:
        """Run ``batch`` (index, case pairs) next (sent at once if the worker is ready, else when it is)."""
        self._pending = batch
        if self.ready:
            self._send_pending()

    def _send_pending(self) -> None:
        assert self._pending is not None
        self.conn.send(self._pending)
        self.task = (dict(self._pending), time.monotonic())
        self._pending = None

    @property
    def busy(self) -> bool:
        return self._pending is not None or self.task is not None

    @property
    def cases(self) -> list[tuple[int, Case]] | None:
        """The cases assigned and without a result yet (None before the first assignment)."""
        if self.task is not None:
            return list(self.task[0].items())
        return self._pending

    def deadline(self, timeout: float) -> float:
        return self.task[1] + timeout if self.task is not None else self.started + STARTUP_TIMEOUT

    def receive(self) -> tuple[Case, tuple[int, str, str, str, float, dict[str, dict[str, int]], Any]] | None:
        """Handle one message: a finished case and its result's fields, or None (the worker became ready).

        Raises EOFError if the worker has died, WorkerStartError if it could not load the backend.
        """
        kind, payload = self.conn.recv()
        if kind == "error":
            raise WorkerStartError(f"the worker could not load the backend '{self.backend_name}': {payload}")
        if kind == "suite_error":  # the worker exits next: its case is recorded with the suite's traceback
            self.suite_error = payload
            raise EOFError(payload)
        if kind == "ready":
            self.ready = True
            self.backend_info = payload
            if self._pending is not None:
                self._send_pending()
            return None
        assert self.task is not None
        remaining = self.task[0]
        case = remaining.pop(payload[0])
        self.task = (remaining, time.monotonic()) if remaining else None
        return case, payload

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> dict[str, Any]:
        """Wait until the worker has loaded the backend; the backend's name and info (conformance.report's
        ``backend_info``). A worker that dies, reports an error or takes longer than ``timeout`` is killed and
        a WorkerStartError says why."""
        deadline = time.monotonic() + timeout
        while not self.ready:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not wait([self.conn, self.process.sentinel], timeout=remaining):
                self.kill()
                raise WorkerStartError(f"the backend '{self.backend_name}' did not load within {timeout:g} s")
            try:
                self.receive()
            except (EOFError, OSError):
                self.process.join(5)
                exit_text = describe_exit(self.process.exitcode)
                self.kill()
                raise WorkerStartError(f"loading the backend '{self.backend_name}' ended its process: the process "
                                       f"{exit_text} (its constructor or module crashed)") from None
            except WorkerStartError:
                self.kill()
                raise
        assert self.backend_info is not None
        return self.backend_info

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(timeout=5)
        self.kill()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


class LoadedBackend:
    """What the parent knows of a backend loaded in a worker: its name and its ``info()`` (for the report)."""

    def __init__(self, info: dict[str, Any]) -> None:
        self.name = str(info.get("name"))
        self._info = info

    def info(self) -> dict[str, Any]:
        return {k: v for k, v in {**self._info.get("details", {}), **self._info}.items()
                if k not in ("name", "details")}


def start_backend(backend_name: str, profile: str = SPEC, timeout: float = STARTUP_TIMEOUT
                  ) -> tuple[LoadedBackend, Worker]:
    """Load ``backend_name`` in a new worker (never in this process): the backend as the parent sees it, and the
    ready worker, for :class:`IsolatedRunner`'s ``workers``. A WorkerStartError names the backend and what went
    wrong (an exception in its constructor, its process killed by a signal, a hang past ``timeout``)."""
    check_profile(profile)
    worker = Worker(backend_name, profile)
    return LoadedBackend(worker.wait_ready(timeout)), worker


class IsolatedRunner:
    """Runs cases on up to ``jobs`` worker processes for the backend named ``backend_name``, judged
    under ``profile`` (conformance/outcomes.py), ``batch_size`` consecutive cases at a time
    (:func:`conformance.runner.run_batch`).

    A batch whose worker dies, or sends no result for ``timeout`` seconds, has the cases still without
    a result run again one at a time, each in a worker of its own: the case that crashes or hangs alone
    is recorded as ``crashed`` or ``timed out``, and the others get their own results.
    """

    def __init__(self, backend_name: str, jobs: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                 profile: str = SPEC, batch_size: int = DEFAULT_BATCH_SIZE, workers: Iterable[Worker] = ()) -> None:
        """``workers``: ready workers of this backend and profile (:func:`start_backend`'s) the run uses first."""
        check_profile(profile)
        if not isinstance(timeout, (int, float)) or not 0 < timeout < float("inf"):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout!r}")
        self.backend_name = backend_name
        self.profile = profile
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.timeout = timeout
        self.batch_size = max(1, batch_size)
        self._idle: list[Worker] = list(workers)

    def run(self, cases: Iterable[Case], progress: Callable[[Result], None] | None = None) -> list[Result]:
        """Every case's result, in the order of ``cases`` (taken lazily, as workers become free)."""
        results: dict[int, Result] = {}
        source: Iterator[list[tuple[int, Case]]] = batches(enumerate(cases), self.batch_size, lambda pair: pair[1])
        alone: collections.deque[list[tuple[int, Case]]] = collections.deque()  # from batches that crashed
        workers: list[Worker] = []  # the busy ones
        taken: list[Worker] = []  # every worker given work: an interrupt may come while one is in neither list

        def record(result: Result, index: int) -> None:
            results[index] = result
            if progress:
                progress(result)

        def give_work(worker: Worker | None) -> None:
            task = alone.popleft() if alone else next(source, None)
            if task is None:
                if worker is not None:
                    self._idle.append(worker)
                return
            while worker is None and self._idle:
                worker = self._idle.pop()
                if not worker.process.is_alive():
                    worker.kill()
                    worker = None
            worker = worker or Worker(self.backend_name, self.profile)
            if worker not in taken:
                taken.append(worker)
            worker.assign(task)
            workers.append(worker)

        try:
            for _ in range(self.jobs):
                give_work(None)
            while workers:
                self._step(workers, record, give_work, alone)
        except BaseException:
            for w in taken:
                if w not in self._idle:
                    w.kill()
            raise
        return [results[i] for i in sorted(results)]

    def _step(self, workers: list[Worker], record: Callable[[Result, int], None],
              give_work: Callable[[Worker | None], None], alone: collections.deque[list[tuple[int, Case]]]) -> None:
        """Wait for the next event (a result, a death, a deadline) and handle it."""
        now = time.monotonic()
        next_deadline = min(w.deadline(self.timeout) for w in workers)
        handles = [w.conn for w in workers] + [w.process.sentinel for w in workers]
        ready = set(wait(handles, timeout=max(0.0, next_deadline - now)))
        now = time.monotonic()
        for w in list(workers):
            if w.conn in ready or w.process.sentinel in ready:
                try:
                    finished = w.receive()
                except (EOFError, OSError):
                    w.process.join(5)
                    message = f"the worker process {describe_exit(w.process.exitcode)} while running this case"
                    if w.suite_error is not None:
                        message += (": the conformance suite's own code raised (a bug of the suite, not of the "
                                    f"backend):\n{w.suite_error}")
                    self._replace(workers, w, record, give_work, alone, CRASHED, message)
                    continue
                if finished is not None:
                    case, (index, status, message, repro, seconds, chosen, program) = finished
                    record(Result(case, status, message, repro, seconds, chosen, program=program), index)
                    if not w.busy:
                        workers.remove(w)
                        give_work(w)
            elif now >= w.deadline(self.timeout):
                if w.task is None:
                    raise WorkerStartError(f"the worker did not start within {STARTUP_TIMEOUT:g} s")
                self._replace(workers, w, record, give_work, alone, TIMED_OUT,
                              f"no result after {self.timeout:g} s: the worker was killed")

    def _replace(self, workers: list[Worker], w: Worker, record: Callable[[Result, int], None],
                 give_work: Callable[[Worker | None], None], alone: collections.deque[list[tuple[int, Case]]],
                 status: str, message: str) -> None:
        """Kill ``w``; record its case as ``status``, or, for a batch of several, run them again alone."""
        remaining = w.cases
        w.kill()
        workers.remove(w)
        if remaining is None:
            raise WorkerStartError(f"the worker process {describe_exit(w.process.exitcode)} before starting")
        if len(remaining) > 1:
            alone.extend([task] for task in remaining)
        elif remaining:
            index, case = remaining[0]
            seconds = time.monotonic() - w.task[1] if w.task is not None else 0.0
            record(Result(case, status, message, reproduction(case, self.backend_name), seconds), index)
        give_work(None)

    def close(self) -> None:
        for w in self._idle:
            w.stop()
        self._idle.clear()

    def __enter__(self) -> IsolatedRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
