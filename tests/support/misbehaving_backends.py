"""Backends that misbehave at the process level (abort, hang, exit, raise, return junk), for the runner's
isolation tests (tests/test_runner_isolation.py, tests/test_pytest_plugin.py): a misbehaving case must cost that
case, never the run. Not value bugs: those are tests/support/mutant_backends.py.

Each one is the reference backend except on one kind of program, a Neg of a rank-0 operand
(the case ``Neg/golden/scalar_f64``), where it misbehaves in its own way. Given to the runner as
``tests.support.misbehaving_backends:NAME``.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from backend.hlo.graph import XlaComputation
from backend.reference import EVALUATORS
from backend.reference.executor import ReferenceBackend
from backend.runtime.walker import GraphWalker


def _is_target(computation: XlaComputation) -> bool:
    return any(inst.opcode == "Neg" and inst.shape.is_array() and inst.shape.rank() == 0
               for inst in computation.instructions)


class _Broken(ReferenceBackend):
    def misbehave(self) -> Any:
        raise NotImplementedError

    def execute(self, computation: XlaComputation, arguments: Sequence[Any], replicas: int = 1) -> list[Any]:
        if _is_target(computation):
            return self.misbehave()
        return super().execute(computation, arguments, replicas)


class _Aborts(_Broken):
    name = "aborts"

    def misbehave(self) -> Any:
        os.abort()


class _Hangs(_Broken):
    name = "hangs"

    def misbehave(self) -> Any:
        time.sleep(3600)


class _Exits(_Broken):
    name = "exits"

    def misbehave(self) -> Any:
        sys.exit(3)


class _ReturnsNone(_Broken):
    name = "returns-none"

    def misbehave(self) -> Any:
        return None


class _OddMessage(_Broken):
    """Raises with a message holding a lone surrogate, control characters and a terminal escape."""

    name = "odd-message"

    def misbehave(self) -> Any:
        raise RuntimeError("bad \udc80 value\x01\x0c\x1b[31m red <&> \ufffe")


class _AbortsOnConstruction(ReferenceBackend):
    """Kills its process in its constructor (a native library that aborts while finding its device)."""

    name = "aborts-on-construction"

    def __init__(self) -> None:
        os.abort()


class _RaisesOnConstruction(ReferenceBackend):
    name = "raises-on-construction"

    def __init__(self) -> None:
        raise RuntimeError("no device found")


class _SupportsRaises(ReferenceBackend):
    name = "supports-raises"

    def supports(self, computation: XlaComputation) -> str | None:
        if _is_target(computation):
            raise KeyError("Neg")
        return super().supports(computation)


class _SuiteBug(_Broken):
    """Answers the target with a wrong value and makes the suite's own judge raise on it: a bug of the suite,
    which the report must show as such, traceback included, not as a backend that exited."""

    name = "suite-bug"

    def misbehave(self) -> Any:
        import numpy as np

        from conformance import runner

        def judge(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the judge's own bug")
        runner.judge = judge  # in the worker process only
        return [np.float64(12345.0)]


def _dividing_neg(ctx: Any, x: Any) -> Any:
    if x.ndim == 0:
        return 1 // 0  # a plain bug in a lowering
    return EVALUATORS.get("Neg")(ctx, x)


class _Lowerings:
    """The reference evaluators, with Neg replaced."""

    def get(self, name: str) -> Any:
        return _dividing_neg if name == "Neg" else EVALUATORS.get(name)


class _LoweringRaises(ReferenceBackend):
    """A walker-based backend whose Neg lowering raises ZeroDivisionError on rank 0."""

    name = "lowering-raises"

    def __init__(self) -> None:
        super().__init__()
        self._walker = GraphWalker(self.name, _Lowerings())  # type: ignore[arg-type]


ABORTS = _Aborts()
SUITE_BUG = _SuiteBug()
HANGS = _Hangs()
EXITS = _Exits()
RETURNS_NONE = _ReturnsNone()
SUPPORTS_RAISES = _SupportsRaises()
LOWERING_RAISES = _LoweringRaises()
ODD_MESSAGE = _OddMessage()
# classes: get_backend constructs them (in the worker that loads the backend)
ABORTS_ON_CONSTRUCTION = _AbortsOnConstruction
RAISES_ON_CONSTRUCTION = _RaisesOnConstruction
