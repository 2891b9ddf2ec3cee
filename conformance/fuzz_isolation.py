"""Judges the programs of a differential search in a worker process, so that a backend (or the reference) that hangs
or crashes costs one program, reported as a finding with its reproduction, and the search goes on.

The worker is a spawned Python process that loads the reference and the backend by name once, then judges each
program it is sent with :func:`conformance.fuzz.judge`, saying which side runs which op before each execution. The
parent waits for the verdict up to the time limit. A program whose judging passes the limit, or kills the worker, is
a disagreement naming the side and the op that were running; where the program is that one op and the backend was
running it, the finding holds the op's operands, so a documented departure (a hang is one too) can claim it. A new
worker takes the next program.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing.connection import Connection, wait
from typing import Any

from backend.hlo.graph import XlaComputation
from conformance.fuzz import DISAGREE, Finding, Program, Verdict, judge, program_reproduction
from conformance.isolation import STARTUP_TIMEOUT, WorkerStartError, describe_exit, die_with_parent

#: Seconds the judging of one program may take by default (every execution of it: the whole program on both sides,
#: and the ops alone when a difference is localized).
DEFAULT_PROGRAM_TIMEOUT = 120.0

_CONTEXT = multiprocessing.get_context("spawn")  # forking a process that has started jax is unsafe
REFERENCE, BACKEND = "reference", "backend"
_SILENT, _DIED = "silent", "died"  # what _receive says when no message came


class FuzzWorkerError(RuntimeError):
    """The search's own code raised in the worker (its traceback is the message): a bug of the suite."""


class _Announcing:
    """A backend that tells the parent, before each execution, which side runs which op (the computation's root)."""

    def __init__(self, backend: Any, side: str, conn: Connection) -> None:
        self._backend, self._side, self._conn = backend, side, conn

    def execute(self, computation: XlaComputation, arguments: Any, **options: Any) -> Any:
        self._conn.send(("running", (self._side, computation.root_instruction.opcode)))
        return self._backend.execute(computation, arguments, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


def _worker_main(conn: Connection, backend_name: str, parent_pid: int) -> None:
    """Load both backends, then judge each program sent until told to stop (None)."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    import traceback

    import specs
    from backend.backends import get_backend

    try:
        reference = _Announcing(get_backend("reference"), REFERENCE, conn)
        target = _Announcing(get_backend(backend_name), BACKEND, conn)
        specs.load_all()
    except BaseException as e:  # noqa: BLE001 - reported to the parent, which stops the search
        conn.send(("error", f"{type(e).__name__}: {e}"))
        return
    conn.send(("ready", None))
    while (program := conn.recv()) is not None:
        try:
            conn.send(("verdict", judge(program, reference, target)))
        except Exception as e:  # judge turns the backends' errors into verdicts: this is the search's own code
            conn.send(("raised", "".join(traceback.format_exception(e, limit=-4)).strip()))


class IsolatedJudge:
    """``judge(program)`` in a worker process with a time limit per program; a context manager (``close`` ends the
    worker). Pass it as :func:`conformance.fuzz.fuzz`'s ``judge_program``."""

    def __init__(self, backend_name: str, timeout: float = DEFAULT_PROGRAM_TIMEOUT,
                 startup_timeout: float = STARTUP_TIMEOUT) -> None:
        if not isinstance(timeout, (int, float)) or not 0 < timeout < float("inf"):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout!r}")
        self.backend_name, self.timeout, self.startup_timeout = backend_name, float(timeout), startup_timeout
        self._process: Any = None
        self._conn: Connection | None = None

    def __enter__(self) -> IsolatedJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start a worker and wait until it has loaded both backends (a WorkerStartError says why it could not)."""
        self._conn, child = _CONTEXT.Pipe()
        self._process = _CONTEXT.Process(target=_worker_main, args=(child, self.backend_name, os.getpid()),
                                         daemon=True, name="fuzz-worker")
        self._process.start()
        child.close()
        kind, payload = self._receive(self.startup_timeout)
        if kind == _SILENT:
            raise WorkerStartError(f"the backend '{self.backend_name}' did not load within {self.startup_timeout:g} s")
        if kind == _DIED:
            raise WorkerStartError(f"loading the backend '{self.backend_name}' ended its process: the process "
                                   f"{payload}")
        if kind == "error":
            self._kill()
            raise WorkerStartError(f"the worker could not load the backend '{self.backend_name}': {payload}")

    def __call__(self, program: Program) -> Verdict:
        if self._conn is None:
            self.start()
        assert self._conn is not None
        self._conn.send(program)
        deadline = time.monotonic() + self.timeout
        running: tuple[str, str] | None = None
        while True:
            kind, payload = self._receive(deadline - time.monotonic())
            if kind == _SILENT:
                return self._lost(program, running, f"no verdict within {self.timeout:g} s")
            if kind == _DIED:
                return self._lost(program, running, f"the worker process {payload}")
            if kind == "running":
                running = payload
            elif kind == "verdict":
                return payload
            else:  # "raised"
                raise FuzzWorkerError(payload)

    def _receive(self, timeout: float) -> tuple[str, Any]:
        """The worker's next message (kind, payload); ``(_SILENT, None)`` when none came within ``timeout`` seconds,
        ``(_DIED, how its process ended)`` when it died: the worker is killed in both."""
        assert self._conn is not None
        if timeout <= 0 or not wait([self._conn, self._process.sentinel], timeout=timeout):
            self._kill()
            return _SILENT, None
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            self._process.join(5)
            exit_text = describe_exit(self._process.exitcode)
            self._kill()
            return _DIED, exit_text

    def _lost(self, program: Program, running: tuple[str, str] | None, what: str) -> Verdict:
        """The finding of a program whose judging hung or crashed: the side and op that were running."""
        side, op = running or (REFERENCE, program.steps[0].op)
        alone = len(program.steps) == 1 and program.steps[0].op == op and side == BACKEND
        culprit = "a bug of the suite" if side == REFERENCE else f"a hang or crash of '{self.backend_name}'"
        message = f"{what} while the {side} ran {op} ({culprit}; the reproduction runs both sides)"
        step = program.steps[0]
        return DISAGREE, Finding(program, op, message, program_reproduction(program, (REFERENCE, self.backend_name)),
                                 dict(step.inputs) if alone else None, dict(step.attrs) if alone else None), ""

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(None)
            except OSError:
                pass
            self._process.join(timeout=5)
        self._kill()

    def _kill(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join()
        if self._conn is not None:
            self._conn.close()
        self._process, self._conn = None, None
