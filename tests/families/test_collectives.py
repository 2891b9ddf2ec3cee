"""Collectives on several devices: AllReduce / CrossReplicaSum / ReplicaId / PartitionId with values worked out by
hand, the execute API for replicas and partitions, and its errors. (Group modes and device groups, the pure functions
every multi-device family uses: tests/test_device_groups.py.)"""

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from backend import ExecutionError, OpError, Shape, UnsupportedError, XlaBuilder, get_backend, ops
from backend.reference.devices import Rendezvous
from tests.support.computations import binary_computation

F32 = Shape.array_shape(np.dtype("float32"), (2,))
S32 = Shape.array_shape(np.dtype("int32"), ())
BACKENDS = ["reference", "jax"]


def _all_reduce(shape=S32, **attrs):
    b = XlaBuilder("all_reduce")
    ops.AllReduce(ops.Parameter(b, 0, shape, "x"), binary_computation(ops.Add, shape.numpy_dtype()), **attrs)
    return b.build()


def _values(result):
    return [r[0].tolist() for r in result]


# -- execution ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_all_reduce_in_groups_of_several_layouts(backend):
    be = get_backend(backend)
    args = [[np.int32(10 ** d)] for d in range(4)]  # 1, 10, 100, 1000
    assert _values(be.execute(_all_reduce(), args, replicas=4)) == [1111] * 4
    assert _values(be.execute(_all_reduce(replica_groups=[[0, 3], [1, 2]]), args, replicas=4)) == \
        [1001, 110, 110, 1001]
    assert _values(be.execute(_all_reduce(replica_groups=[[2], [3, 0, 1]]), args, replicas=4)) == \
        [1011, 1011, 100, 1011]


@pytest.mark.parametrize("backend", BACKENDS)
def test_all_reduce_with_partitions(backend):
    be = get_backend(backend)
    args = [[np.int32(2 ** d)] for d in range(8)]  # device d = 4 r + p holds 2^d; 2 replicas x 4 partitions
    # no channel: each partition over the replicas: p gets 2^p + 2^(p + 4)
    assert _values(be.execute(_all_reduce(), args, replicas=2, partitions=4)) == [17, 34, 68, 136] * 2
    # a channel: replica groups [[0, 1]] is every device
    assert _values(be.execute(_all_reduce(replica_groups=[[0, 1]], channel_id=1), args, replicas=2,
                              partitions=4)) == [255] * 8
    # global device ids, the seed's groups
    groups = [[0, 1, 4, 5], [2, 3, 6, 7]]
    assert _values(be.execute(_all_reduce(replica_groups=groups, channel_id=1, use_global_device_ids=True), args,
                              replicas=2, partitions=4)) == [51, 51, 204, 204, 51, 51, 204, 204]


@pytest.mark.parametrize("backend", BACKENDS)
def test_cross_replica_sum_replica_id_partition_id(backend):
    be = get_backend(backend)
    b = XlaBuilder("ids")
    rid = ops.ReplicaId(b)
    ops.Tuple(b, [rid, ops.PartitionId(b), ops.CrossReplicaSum(ops.ConvertElementType(rid, np.dtype("float32")))])
    out = be.execute(b.build(), [[] for _ in range(6)], replicas=3, partitions=2)
    assert [[int(x) for x in o[:2]] for o in out] == [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]]
    assert [o[2].dtype for o in out] == [np.float32] * 6 and [float(o[2]) for o in out] == [3.0] * 6


def _loop_of_all_reduces(trips_from_replica_id=False):
    """(i, x) -> while i < limit: (i + 1, AllReduce(x)); limit 3, or ReplicaId + 1."""
    state = Shape.tuple_shape([S32, S32])
    cond = XlaBuilder("cond")
    p = ops.Parameter(cond, 0, state, "s")
    limit = ops.Add(ops.ConvertElementType(ops.ReplicaId(cond), np.dtype("int32")), ops.Constant(cond, np.int32(1))) \
        if trips_from_replica_id else ops.Constant(cond, np.int32(3))
    ops.Lt(ops.GetTupleElement(p, 0), limit)
    body = XlaBuilder("body")
    p = ops.Parameter(body, 0, state, "s")
    ops.Tuple(body, [ops.Add(ops.GetTupleElement(p, 0), ops.Constant(body, np.int32(1))),
                     ops.AllReduce(ops.GetTupleElement(p, 1), binary_computation(ops.Add, np.int32))])
    b = XlaBuilder("loop")
    x = ops.Parameter(b, 0, S32, "x")
    ops.GetTupleElement(ops.While(cond.build(), body.build(), ops.Tuple(b, [ops.Constant(b, np.int32(0)), x])), 1)
    return b.build()


@pytest.mark.parametrize("backend", BACKENDS)
def test_all_reduce_inside_a_while_loop(backend):
    # 1 and 2 -> 3, 3 -> 6, 6 -> 12, 12
    out = get_backend(backend).execute(_loop_of_all_reduces(), [[np.int32(1)], [np.int32(2)]], replicas=2)
    assert _values(out) == [12, 12]


def test_different_trip_counts_fail_without_hanging_on_reference():
    # device 0 runs the body once, device 1 twice: device 1 waits at the second AllReduce for device 0, which has
    # finished; XLA would wait forever, the reference says so at once
    with pytest.raises(ExecutionError) as e:
        get_backend("reference").execute(_loop_of_all_reduces(True), [[np.int32(1)], [np.int32(2)]], replicas=2)
    assert e.value.op == "AllReduce" and "devices [1] wait at collective #1" in str(e.value)
    assert "never reach it" in str(e.value) and "devices [0] finished" in str(e.value)


def test_rendezvous_times_out_while_a_device_is_busy():
    rendezvous = Rendezvous("reference", 2, timeout=0.2)  # device 1 neither arrives nor finishes
    with pytest.raises(ExecutionError, match="wait at collective #0 \\(AllReduce\\) for devices \\[1\\]"):
        rendezvous.exchange(0, (0, "AllReduce"), np.zeros(1))


def test_rendezvous_returns_every_value_in_device_order():
    rendezvous = Rendezvous("reference", 3, timeout=5)
    got = [None] * 3

    def run(d):
        got[d] = rendezvous.exchange(d, (0, "AllReduce"), d * 10)
    threads = [threading.Thread(target=run, args=(d,)) for d in (2, 0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [[0, 10, 20]] * 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_groups_that_do_not_fit_the_device_count_are_op_errors(backend):
    be = get_backend(backend)
    with pytest.raises(OpError) as e:
        be.execute(_all_reduce(replica_groups=[[0, 1], [2]]), [[np.int32(1)]] * 4, replicas=4)
    assert (e.value.op, e.value.constraint, e.value.arg) == ("AllReduce", "C3", "replica_groups")
    assert "ids [3] are in no replica group" in str(e.value)


def test_builder_checks():
    b = XlaBuilder("t")
    x = ops.Parameter(b, 0, F32, "x")
    for attrs, constraint in [({"use_global_device_ids": True}, "C4"), ({"replica_groups": [[0, 0]]}, "C3"),
                              ({"channel_id": -2}, "C6"), ({"shape_with_layout": S32}, "C5")]:
        with pytest.raises(OpError) as e:
            ops.AllReduce(x, binary_computation(ops.Add, np.dtype("float32")), **attrs)
        assert e.value.constraint == constraint, attrs
    with pytest.raises(OpError) as e:
        ops.AllReduce(x, binary_computation(ops.Add, np.int32))  # an s32 computation for an f32 operand
    assert e.value.constraint == "C2"


@pytest.mark.parametrize("backend", ["reference", "jax", "pallas"])
def test_execute_arguments_and_device_counts(backend):
    be = get_backend(backend)
    comp = _all_reduce()
    with pytest.raises(OpError, match="takes a list of 2 per-device argument lists") as e:
        be.execute(comp, [np.int32(1)], replicas=2)
    assert e.value.arg == "arguments"
    with pytest.raises(OpError, match="device 1: expects 1 arguments"):
        be.execute(comp, [[np.int32(1)], []], replicas=2)
    with pytest.raises(OpError) as e:
        be.execute(comp, [[np.int32(1)]], replicas=1, partitions=0)
    assert e.value.arg == "partitions"
    needed = 2000 if backend == "reference" else 16
    with pytest.raises(UnsupportedError, match=f"needs {needed} devices"):
        be.execute(comp, [[np.int32(1)]] * needed, replicas=needed)
    assert _values(be.execute(comp, [[np.int32(5)], [np.int32(-2)]], replicas=1, partitions=2)) == [5, -2]


def test_the_jax_backend_has_eight_host_devices():
    import jax

    assert len(jax.devices()) >= 8
    out = get_backend("jax").execute(_all_reduce(), [[np.int32(d)] for d in range(8)], replicas=8)
    assert _values(out) == [28] * 8


def test_the_readme_all_reduce_example_runs(capsys):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    code = readme.split("<!-- readme-example: all-reduce -->\n```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == [
        "reference [[16.0, 20.0], [16.0, 20.0], [16.0, 20.0], [16.0, 20.0]]",
        "jax [[16.0, 20.0], [16.0, 20.0], [16.0, 20.0], [16.0, 20.0]]"]


def test_the_host_device_count_is_configurable(tmp_path):
    code = ("import numpy as np, jax\n"
            "from backend import get_backend, XlaBuilder, ops\n"
            "b = XlaBuilder('r'); ops.ReplicaId(b)\n"
            "print(len(jax.devices()))\n"
            "try:\n"
            "    get_backend('jax').execute(b.build(), [[]] * 4, replicas=4)\n"
            "except Exception as e:\n"
            "    print(type(e).__name__, e)\n")
    env = {**os.environ, "XLA_SEMANTICS_CPU_DEVICES": "3", "JAX_PLATFORMS": "cpu"}
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                          cwd=Path(__file__).resolve().parents[2])
    lines = proc.stdout.splitlines()
    assert lines[0] == "3", proc.stdout + proc.stderr
    assert lines[1].startswith("UnsupportedError") and "needs 4 devices" in lines[1] and "3 are available" in lines[1]


def _conditional_all_reduce(predicate):
    """A Conditional whose true branch AllReduces its s32 operand and whose false branch negates it, chosen by
    ``predicate(builder, x)``."""
    r = XlaBuilder("reduce")
    ops.AllReduce(ops.Parameter(r, 0, S32, "x"), binary_computation(ops.Add, np.dtype("int32")))
    i = XlaBuilder("identity")
    ops.Neg(ops.Parameter(i, 0, S32, "x"))
    m = XlaBuilder("main")
    x = ops.Parameter(m, 0, S32, "x")
    ops.Conditional(predicate(m, x), x, r.build(), x, i.build())
    return m.build()


def _all_reduce_on_replica_zero_only():
    """Replica 0 runs a branch with an AllReduce, the others a branch without: the AllReduce is reached by one."""
    return _conditional_all_reduce(lambda m, x: ops.Eq(ops.ReplicaId(m), ops.Constant(m, np.uint32(0))))


def test_jax_refuses_a_collective_not_every_device_reaches():
    """jax waited 61 s, then XLA ended the process (SIGABRT); supports() now refuses a collective in a branch chosen
    from ReplicaId, naming it. The reference reports the run as an error. In a subprocess, with 2 CPU devices."""
    from tests.support.isolated import run_isolated
    proc = run_isolated("""
        import numpy as np
        from backend import UnsupportedError, get_backend
        from tests.families.test_collectives import _all_reduce_on_replica_zero_only
        jax = get_backend("jax")
        print(jax.supports(_all_reduce_on_replica_zero_only()))
        try:
            jax.execute(_all_reduce_on_replica_zero_only(), [[np.int32(1)], [np.int32(2)]], replicas=2)
        except UnsupportedError as e:
            print("refused", e.op)
    """, timeout=100, env={"XLA_SEMANTICS_CPU_DEVICES": "2"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    reason, refused = proc.stdout.splitlines()
    assert reason.startswith("AllReduce runs in a branch of Conditional") and "ReplicaId" in reason
    assert refused == "refused Conditional"
    with pytest.raises(ExecutionError, match=r"wait at collective #0 \(AllReduce\)"):
        get_backend("reference").execute(_all_reduce_on_replica_zero_only(), [[np.int32(1)], [np.int32(2)]],
                                         replicas=2)


def test_a_collective_every_device_reaches_still_runs_on_jax():
    """The same AllReduce chosen from the operand rather than ReplicaId is not refused (devices given the same
    predicate agree): 1 + 2 = 3 on both replicas."""
    computation = _conditional_all_reduce(lambda m, x: ops.Gt(x, ops.Constant(m, np.int32(-100))))
    assert get_backend("jax").supports(computation) is None
