"""CollectivePermute, MultiCollectivePermute, CollectiveBroadcast on 1, 2, 4 and 8 devices, and
Send/Recv/SendDone/RecvDone programs, on the reference and on jax (8 host devices): hand-computed values
and the execute-time errors. (RecvFromHost and SendToHost: tests/families/test_side_effects.py.)"""

from __future__ import annotations

import types

import numpy as np
import pytest

from backend import OpError, Shape, UnsupportedError, XlaBuilder, get_backend, ops
from tests.support.running import build_computation

BACKENDS = ["reference", "jax"]
F32_2 = Shape.array_shape(np.float32, (2,))
S32_1 = Shape.array_shape(np.int32, (1,))


def _run(name: str, computation, per_device: list[np.ndarray], replicas: int, partitions: int = 1) -> list:
    results = get_backend(name).execute(computation, [[v] for v in per_device], replicas=replicas,
                                        partitions=partitions)
    return [r[0].tolist() if len(r) == 1 else [x.tolist() for x in r] for r in results]


def _ids(count: int, dtype=np.int32) -> list[np.ndarray]:
    """Device d's operand: [d + 1] (so a received zero is told apart from device 0's value)."""
    return [np.array([d + 1], dtype) for d in range(count)]


@pytest.mark.parametrize("name", BACKENDS)
def test_permute_cycle_leaves_the_untargeted_device_zero(name):
    # pairs 0->1, 1->2, 2->0 on 4 replicas: device 3 is no target, so it gets zeros (the seed)
    c = build_computation(lambda x: ops.CollectivePermute(x, [(0, 1), (1, 2), (2, 0)]), F32_2)
    got = _run(name, c, [np.array([d, 10 * d], np.float32) for d in range(4)], replicas=4)
    assert got == [[2, 20], [0, 0], [1, 10], [0, 0]]


@pytest.mark.parametrize("name", BACKENDS)
def test_permute_rotation_over_eight_devices(name):
    c = build_computation(lambda x: ops.CollectivePermute(x, [(i, (i + 1) % 8) for i in range(8)]), S32_1)
    assert _run(name, c, _ids(8), replicas=8) == [[8], [1], [2], [3], [4], [5], [6], [7]]


@pytest.mark.parametrize("name", BACKENDS)
def test_permute_modes_on_two_by_two(name):
    # devices d = r * 2 + p hold [d + 1]
    # no channel_id: replica ids; pair (1, 0) within each partition: (0, p) <- (1, p), replica 1 gets zeros
    c = build_computation(lambda x: ops.CollectivePermute(x, [(1, 0)]), S32_1)
    assert _run(name, c, _ids(4), replicas=2, partitions=2) == [[3], [4], [0], [0]]
    # a channel_id: partition ids; pair (0, 1) within each replica: (r, 1) <- (r, 0), partition 0 gets zeros
    c = build_computation(lambda x: ops.CollectivePermute(x, [(0, 1)], channel_id=1), S32_1)
    assert _run(name, c, _ids(4), replicas=2, partitions=2) == [[0], [1], [0], [3]]


@pytest.mark.parametrize("name", BACKENDS)
def test_multi_permute_swaps_every_operand(name):
    b = XlaBuilder("multi")
    x = ops.Parameter(b, 0, F32_2)
    y = ops.Parameter(b, 1, Shape.array_shape(np.int8, ()))
    ops.MultiCollectivePermute([x, y], [(0, 1), (1, 0)], channel_id=None, inplace=False)
    args = [[np.array([1.5, -2], np.float32), np.int8(-7)], [np.array([3, 4], np.float32), np.int8(9)]]
    got = get_backend(name).execute(b.build(), args, replicas=2)
    assert [[v.tolist() for v in r] for r in got] == [[[3, 4], 9], [[1.5, -2], -7]]


@pytest.mark.parametrize("name", BACKENDS)
def test_broadcast_groups_and_devices_in_no_group(name):
    # 4 replicas x 2 partitions, no channel_id: groups of replica ids [[1, 0], [3]] within each partition;
    # replica 2 is in no group: zeros
    c = build_computation(lambda x: ops.CollectiveBroadcast(x, [[1, 0], [3]]), S32_1)
    assert _run(name, c, _ids(8), replicas=4, partitions=2) == [[3], [4], [3], [4], [0], [0], [7], [8]]
    # a channel_id: partition ids, group [1, 0] within each replica: everyone gets partition 1's value
    c = build_computation(lambda x: ops.CollectiveBroadcast(x, [[1, 0]], channel_id=types.SimpleNamespace(handle=2)),
                          S32_1)
    assert _run(name, c, _ids(8), replicas=4, partitions=2) == [[2], [2], [4], [4], [6], [6], [8], [8]]


@pytest.mark.parametrize("name", BACKENDS)
def test_broadcast_empty_groups_is_all_from_device_zero(name):
    c = build_computation(lambda x: ops.CollectiveBroadcast(x, []), S32_1)
    assert _run(name, c, _ids(2), replicas=2) == [[1], [1]]
    c = build_computation(lambda x: ops.CollectiveBroadcast(x, [[2, 0, 3]]), S32_1)
    assert _run(name, c, _ids(4), replicas=4) == [[3], [0], [3], [3]]


@pytest.mark.parametrize("name", BACKENDS)
def test_ids_out_of_range_at_execute_time(name):
    c = build_computation(lambda x: ops.CollectivePermute(x, [(0, 2)]), S32_1)
    with pytest.raises(OpError) as e:
        _run(name, c, _ids(2), replicas=2)
    assert (e.value.op, e.value.constraint, e.value.arg) == ("CollectivePermute", "C6", "source_target_pairs")
    # a channel_id makes the ids partition ids: one partition, so id 1 is out of range
    c = build_computation(lambda x: ops.MultiCollectivePermute([x], [(1, 0)], channel_id=4), S32_1)
    with pytest.raises(OpError) as e:
        _run(name, c, _ids(2), replicas=2)
    assert (e.value.op, e.value.constraint) == ("MultiCollectivePermute", "C6")
    c = build_computation(lambda x: ops.CollectiveBroadcast(x, [[0], [4]]), S32_1)
    with pytest.raises(OpError) as e:
        _run(name, c, _ids(4), replicas=4)
    assert (e.value.op, e.value.constraint, e.value.arg) == ("CollectiveBroadcast", "C5", "replica_groups")


def test_builder_checks_name_the_constraint():
    b = XlaBuilder("errors")
    x = ops.Parameter(b, 0, F32_2)
    for pairs, constraint in (([(0, 1), (2, 1)], "C2"), ([(0, 1), (0, 2)], "C3"), ([(0, -1)], "C1"),
                              ([(0,)], "C1"), ("ab", "C1")):
        with pytest.raises(OpError) as e:
            ops.CollectivePermute(x, pairs)
        assert (e.value.constraint, e.value.arg) == (constraint, "source_target_pairs"), pairs
    with pytest.raises(OpError) as e:
        ops.CollectivePermute(x, [], channel_id=0)
    assert e.value.constraint == "C4"
    with pytest.raises(OpError) as e:
        ops.CollectiveBroadcast(x, [[0, 1], [1]])
    assert e.value.constraint == "C1"
    with pytest.raises(OpError) as e:
        ops.CollectiveBroadcast(x, [[]])
    assert e.value.constraint == "C2"


def _send_recv_program(sends: list[tuple[int, Shape]], recvs: list[tuple[int, Shape]]) -> object:
    """Recvs first (the seed's schedule: Recv before Send), then Sends of parameter k + 1 * 10**k, then
    the Dones; the result is the tuple of the data received."""
    b = XlaBuilder("send_recv")
    started = [ops.Recv(b, shape, handle) for handle, shape in recvs]
    x = ops.Parameter(b, 0, F32_2)
    sent = [ops.Send(ops.Add(x, ops.Constant(b, np.float32(10 ** k))), handle) for k, (handle, _) in enumerate(sends)]
    for s in sent:
        ops.SendDone(s)
    ops.Tuple(b, [ops.GetTupleElement(ops.RecvDone(r), 0) for r in started])
    return b.build()


@pytest.mark.parametrize("name", BACKENDS)
def test_send_recv_pair_by_channel_in_program_order(name):
    # sends: channel 2 gets x + 1 then x + 100; channel 7 gets x + 10. Recvs on 7, 2, 2 take them in order.
    c = _send_recv_program([(2, F32_2), (7, F32_2), (2, F32_2)], [(7, F32_2), (2, F32_2), (2, F32_2)])
    got = get_backend(name).execute(c, [np.array([0.5, -1], np.float32)])
    assert [g.tolist() for g in got] == [[10.5, 9], [1.5, 0], [100.5, 99]]


@pytest.mark.parametrize("name", BACKENDS)
def test_recv_without_send_and_shape_mismatch_are_errors(name):
    c = _send_recv_program([(1, F32_2)], [(3, F32_2)])
    with pytest.raises(OpError) as e:
        get_backend(name).execute(c, [np.zeros(2, np.float32)])
    assert (e.value.op, e.value.constraint) == ("RecvDone", "channel") and "channel 3" in str(e.value)
    c = _send_recv_program([(1, F32_2)], [(1, Shape.array_shape(np.float32, (3,)))])
    with pytest.raises(OpError) as e:
        get_backend(name).execute(c, [np.zeros(2, np.float32)])
    assert e.value.constraint == "channel" and "f32[3]" in str(e.value)


@pytest.mark.parametrize("name", BACKENDS)
def test_send_recv_on_several_devices_is_unsupported(name):
    c = _send_recv_program([(1, F32_2)], [(1, F32_2)])
    with pytest.raises(UnsupportedError, match="_xla_send_recv_source_target_pairs"):
        get_backend(name).execute(c, [[np.zeros(2, np.float32)], [np.ones(2, np.float32)]], replicas=2)


def test_done_ops_take_their_start_s_context():
    b = XlaBuilder("dones")
    r = ops.Recv(b, F32_2, 1)
    with pytest.raises(OpError) as e:
        ops.SendDone(r)
    assert (e.value.op, e.value.constraint, e.value.arg) == ("SendDone", "C1", "context")
    s = ops.Send(ops.Parameter(b, 0, F32_2), 1)
    with pytest.raises(OpError) as e:
        ops.RecvDone(s)
    assert (e.value.op, e.value.constraint) == ("RecvDone", "C1")
    with pytest.raises(OpError) as e:
        ops.RecvDone(ops.Parameter(b, 1, F32_2))
    assert (e.value.op, e.value.constraint) == ("RecvDone", "C1")
    assert b.get_shape(ops.RecvDone(r)) == Shape.tuple_shape([F32_2, Shape.token_shape()])
    assert b.get_shape(ops.SendDone(s)) == Shape.token_shape()
