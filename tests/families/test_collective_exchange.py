"""AllGather, ReduceScatter, AllToAll and RaggedAllToAll: hand-computed values on reference and jax (several
devices), the xla_client call forms, and the builder's and execute's errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from backend import OpError, Shape, XlaBuilder, get_backend, make_replica_groups, ops
from backend.hlo.etypes import PrimitiveType
from tests.support.computations import binary_computation
from tests.support.running import build_computation

BACKENDS = ["reference", "jax"]
F32, S32 = PrimitiveType.F32, PrimitiveType.S32


def _run(backend: str, comp: Any, per_device: list[list[np.ndarray]], replicas: int, partitions: int = 1) -> list:
    out = get_backend(backend).execute(comp, per_device, replicas=replicas, partitions=partitions)
    return [r[0] for r in out]


class _ChannelHandle:
    """What xla_client's ChannelHandle offers: a handle number."""

    def __init__(self, handle: int) -> None:
        self.handle = handle


@pytest.mark.parametrize("backend", BACKENDS)
def test_all_gather_xla_client_form_with_shape_with_layout(backend: str) -> None:
    # 4 replicas, groups {3, 1} and {0, 2}; device d holds [[d], [10 + d]]; gathering along dimension 1 in
    # group order: {3, 1} -> [[3, 1], [13, 11]], {0, 2} -> [[0, 2], [10, 12]].
    layout = Shape.array_shape(S32, (2, 2), (0, 1))
    comp = build_computation(lambda x: ops.AllGather(
        x, 1, 2, make_replica_groups([[3, 1], [0, 2]]), None, shape_with_layout=layout),
        Shape.array_shape(S32, (2, 1)))
    assert comp.root_instruction.shape.layout().minor_to_major == (0, 1)
    args = [[np.array([[d], [10 + d]], np.int32)] for d in range(4)]
    out = _run(backend, comp, args, replicas=4)
    for d, want in enumerate([[[0, 2], [10, 12]], [[3, 1], [13, 11]], [[0, 2], [10, 12]], [[3, 1], [13, 11]]]):
        np.testing.assert_array_equal(out[d], np.array(want, np.int32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_scatter_multiply_in_reversed_group(backend: str) -> None:
    # 4 replicas in one group {3, 2, 1, 0}; device d holds [d + 1] * 4 (f32); the product is 24 everywhere;
    # operand [d + 1, 1, 1, d + 1] makes shards differ: product [24, 1, 1, 24]; position i (device 3 - i)
    # gets element i.
    mul = binary_computation(ops.Mul)
    comp = build_computation(lambda x: ops.ReduceScatter(
        x, mul, 0, 4, replica_groups=[[3, 2, 1, 0]]), Shape.array_shape(F32, (4,)))
    args = [[np.array([d + 1, 1, 1, d + 1], np.float32)] for d in range(4)]
    out = _run(backend, comp, args, replicas=4)
    assert [o.tolist() for o in out] == [[24.0], [1.0], [1.0], [24.0]][::-1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_all_to_all_two_groups_of_four_on_eight_devices(backend: str) -> None:
    comp = build_computation(lambda x: ops.AllToAll(
        x, 0, 0, 4, replica_groups=[[0, 1, 2, 3], [7, 6, 5, 4]]), Shape.array_shape(S32, (4,)))
    args = [[np.array([10 * d + k for k in range(4)], np.int32)] for d in range(8)]
    out = _run(backend, comp, args, replicas=8)
    want = {0: [0, 10, 20, 30], 1: [1, 11, 21, 31], 2: [2, 12, 22, 32], 3: [3, 13, 23, 33],
            7: [70, 60, 50, 40], 6: [71, 61, 51, 41], 5: [72, 62, 52, 42], 4: [73, 63, 53, 43]}
    for d in range(8):
        assert out[d].tolist() == want[d], d


@pytest.mark.parametrize("backend", BACKENDS)
def test_all_to_all_cross_partition_with_channel_handle(backend: str) -> None:
    # 2 replicas x 2 partitions, a channel: partitions 0 and 1 of each replica exchange; device d holds
    # [[d, 10 d]] (s32[1,2]); split along dimension 1, concatenated along dimension 0.
    comp = build_computation(lambda x: ops.AllToAll(
        x, 1, 0, 2, channel_id=_ChannelHandle(5)), Shape.array_shape(S32, (1, 2)))
    args = [[np.array([[d, 10 * d]], np.int32)] for d in range(4)]
    out = _run(backend, comp, args, replicas=2, partitions=2)
    assert [o.tolist() for o in out] == [[[0], [1]], [[0], [10]], [[2], [3]], [[20], [30]]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_ragged_all_to_all_segments_of_different_sizes(backend: str) -> None:
    # Every device j sends input_j[0:1] to device 0 (at j), nothing to device 1, input_j[1:3] to device 2
    # (at 2 j) and input_j[3:4] to device 3 (at j); input_j = [10 j, 10 j + 1, 10 j + 2, 10 j + 3].
    shapes = [Shape.array_shape(S32, (4,)), *[Shape.array_shape(S32, (4,))] * 2, Shape.array_shape(S32, (8,)),
              *[Shape.array_shape(S32, (4,))] * 2]
    comp = build_computation(ops.RaggedAllToAll, *shapes)
    recv = {0: [1] * 4, 1: [0] * 4, 2: [2] * 4, 3: [1] * 4}
    args = [[np.array([10 * j + k for k in range(4)], np.int32), np.array([0, 0, 1, 3], np.int32),
             np.array([1, 0, 2, 1], np.int32), np.full(8, -1, np.int32), np.array([j, 0, 2 * j, j], np.int32),
             np.array(recv[j], np.int32)] for j in range(4)]
    out = _run(backend, comp, args, replicas=4)
    assert [o.tolist() for o in out] == [[0, 10, 20, 30, -1, -1, -1, -1], [-1] * 8, [1, 2, 11, 12, 21, 22, 31, 32],
                                         [3, 13, 23, 33, -1, -1, -1, -1]]


@pytest.mark.parametrize("call, constraint, arg", [
    (lambda x: ops.ReduceScatter(x, binary_computation(ops.Add), 1, 2), "C5", "shard_count"),
    (lambda x: ops.AllGather(x, 0, 2, replica_groups=[[0, 1], [2]]), "C5", "replica_groups"),
    (lambda x: ops.AllGather(x, 0, 2, use_global_device_ids=True), "C6", "use_global_device_ids"),
    (lambda x: ops.AllGather(x, 0, 2, shape_with_layout=Shape.array_shape(F32, (2, 3))), "C8", "layout"),
    (lambda x: ops.AllGather(x, 0, 2, replica_groups="01"), "C4", "replica_groups"),
    (lambda x: ops.AllToAll(x, 0, 1, 2, channel_id=0), "C8", "channel_id"),
    (lambda x: ops.AllToAll(x, 0, 1, 3), "C4", "split_count"),
    (lambda x: ops.AllToAll(x, 0, -1, 2), "C2", "concat_dimension"),
])
def test_builder_errors(call: Callable[[Any], Any], constraint: str, arg: str) -> None:
    b = XlaBuilder("bad")
    x = ops.Parameter(b, 0, Shape.array_shape(F32, (2, 3)))
    with pytest.raises(OpError) as info:
        call(x)
    assert (info.value.constraint, info.value.arg) == (constraint, arg), str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_execute_time_group_errors(backend: str) -> None:
    # replica id 4 of 4 replicas does not exist; 3 replicas in one group of shard_count 2 do not fit
    comp = build_computation(lambda x: ops.AllGather(x, 0, 2, replica_groups=[[0, 4], [1, 2]]),
                             Shape.array_shape(F32, (2,)))
    with pytest.raises(OpError) as info:
        get_backend(backend).execute(comp, [[np.zeros(2, np.float32)]] * 4, replicas=4)
    assert (info.value.constraint, info.value.arg) == ("C9", "replica_groups")
    comp = build_computation(lambda x: ops.ReduceScatter(x, binary_computation(ops.Add), 0, 2),
                             Shape.array_shape(F32, (2,)))
    with pytest.raises(OpError) as info:
        get_backend(backend).execute(comp, [[np.zeros(2, np.float32)]] * 3, replicas=3)
    assert info.value.constraint == "C11"
