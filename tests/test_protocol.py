"""The Backend protocol's ``execute(..., timeout=SECONDS)`` on every built-in backend (backend/runtime/protocol.py,
the reference's walker and devices, the jax executor): a program that does not end stops with an ExecutionError
naming the op."""

import math
import time

import numpy as np
import pytest

from backend import ExecutionError, OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.reference.executor import ReferenceBackend
from backend.runtime.walker import RunTimeout
from tests.support.computations import binary_computation

S32 = PrimitiveType.S32
BACKENDS = ["reference", "jax", "pallas"]


def _loop(condition_value=True, name="spin"):
    """While(condition_value) { x + 1 } over an s32 scalar: forever when the condition is true."""
    c = XlaBuilder(f"{name}_cond")
    ops.Parameter(c, 0, Shape.scalar_shape(S32), "x")
    ops.Constant(c, np.bool_(condition_value))
    b = XlaBuilder(f"{name}_body")
    x = ops.Parameter(b, 0, Shape.scalar_shape(S32), "x")
    ops.Add(x, ops.Constant(b, np.int32(1)))
    return c.build(), b.build()


def _forever():
    m = XlaBuilder("forever")
    ops.While(*_loop(), ops.Parameter(m, 0, Shape.scalar_shape(S32), "x"))
    return m.build()


def _one_replica_spins():
    """Replica 0 runs While(true); replica 1 goes to an AllReduce that replica 0 never reaches."""
    t = XlaBuilder("spin")
    ops.While(*_loop(), ops.Parameter(t, 0, Shape.scalar_shape(S32), "x"))
    r = XlaBuilder("reduce")
    ops.AllReduce(ops.Parameter(r, 0, Shape.scalar_shape(S32), "x"), binary_computation(ops.Add, S32))
    m = XlaBuilder("main")
    x = ops.Parameter(m, 0, Shape.scalar_shape(S32), "x")
    ops.Conditional(ops.Eq(ops.ReplicaId(m), ops.Constant(m, np.uint32(0))), x, t.build(), x, r.build())
    return m.build()


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_true_ends_at_the_timeout_with_an_error_naming_while(backend):
    start = time.monotonic()
    with pytest.raises(ExecutionError) as info:
        get_backend(backend).execute(_forever(), [np.int32(0)], timeout=0.5)
    assert info.value.op == "While" and isinstance(info.value.error, RunTimeout)
    assert "did not end within its timeout of 0.5 s" in str(info.value)
    assert time.monotonic() - start < 30  # jax compiles first; the reference stops within a few ms


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_run_that_ends_in_time_gives_its_result(backend):
    """While(false) returns its init 41; Add gives 3 + 4 = 7, with a timeout and with math.inf."""
    m = XlaBuilder("once")
    ops.While(*_loop(False, "never"), ops.Parameter(m, 0, Shape.scalar_shape(S32), "x"))
    assert get_backend(backend).execute(m.build(), [np.int32(41)], timeout=30)[0] == 41
    a = XlaBuilder("add")
    ops.Add(ops.Parameter(a, 0, Shape.scalar_shape(S32), "x"), ops.Parameter(a, 1, Shape.scalar_shape(S32), "y"))
    assert get_backend(backend).execute(a.build(), [np.int32(3), np.int32(4)], timeout=math.inf)[0] == 7


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("timeout", [0, -1, float("nan"), "1", True, [1]])
def test_a_malformed_timeout_is_an_op_error(backend, timeout):
    with pytest.raises(OpError, match="timeout must be a number of seconds > 0") as info:
        get_backend(backend).execute(_forever(), [np.int32(0)], timeout=timeout)
    assert info.value.arg == "timeout"


def test_reference_errors_inside_a_timed_run_are_the_errors_themselves():
    with pytest.raises(OpError, match="arguments"):
        get_backend("reference").execute(_forever(), [np.float32(0)], timeout=5)
    with pytest.raises(OpError, match="arguments"):
        get_backend("jax").execute(_forever(), [np.float32(0)], timeout=5)


def test_reference_replica_spinning_while_another_waits_ends_at_the_timeout():
    start = time.monotonic()
    with pytest.raises(ExecutionError) as info:
        get_backend("reference").execute(_one_replica_spins(), [[np.int32(1)], [np.int32(2)]], replicas=2,
                                         timeout=0.5)
    assert isinstance(info.value.error, RunTimeout) and info.value.op in ("While", "AllReduce")
    assert time.monotonic() - start < 10


def test_reference_replica_spinning_while_another_waits_ends_without_a_timeout_too():
    """Before: the waiting replica failed after the rendezvous timeout, and the run then joined the spinning
    replica's thread forever. Now the spinning replica stops when the rendezvous fails."""
    start = time.monotonic()
    with pytest.raises(ExecutionError, match=r"devices \[1\] wait at collective #0 \(AllReduce\) for devices \[0\]"):
        ReferenceBackend(rendezvous_timeout=0.5).execute(_one_replica_spins(), [[np.int32(1)], [np.int32(2)]],
                                                         replicas=2)
    assert time.monotonic() - start < 10


def test_reference_devices_that_cannot_all_start_are_an_unsupported_error(monkeypatch):
    """A thread that cannot start (1,024 replicas under a memory limit gave a raw "can't start new thread"): an
    UnsupportedError naming the count; the devices already started stop (the rendezvous is aborted)."""
    import threading

    from backend import UnsupportedError
    started = []
    real_start = threading.Thread.start

    def start(thread):
        if len(started) == 2:
            raise RuntimeError("can't start new thread")
        started.append(thread)
        real_start(thread)
    monkeypatch.setattr(threading.Thread, "start", start)
    b = XlaBuilder("sum")
    ops.AllReduce(ops.Parameter(b, 0, Shape.scalar_shape(S32), "x"), binary_computation(ops.Add, S32))
    with pytest.raises(UnsupportedError, match=r"needs 4 device threads and only 2 could be started"):
        get_backend("reference").execute(b.build(), [[np.int32(k)] for k in range(4)], replicas=4)
    assert len(started) == 2 and not any(t.is_alive() for t in started)
