"""backend/jax_backend/collective_paths.py: the jax collective each collective instruction lowers to (decided from
the instruction and the device count), the values of the paths the op tests do not reach, and the bytes the
lowering moves against the same collective written directly in jax (benchmarks/collectives.py)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from backend import OpError, Shape, get_backend, ops
from backend.hlo.etypes import PrimitiveType
from backend.jax_backend.collective_paths import collective_path, paths_of
from tests.support.computations import binary_computation
from tests.support.running import build_computation

F32, S32, U8, PRED = PrimitiveType.F32, PrimitiveType.S32, PrimitiveType.U8, PrimitiveType.PRED


def _channel(handle: int = 1) -> Any:
    return types.SimpleNamespace(handle=handle)


def _path(build: Callable[[Any], Any], shape: Shape, replicas: int, partitions: int = 1) -> Any:
    computation = build_computation(build, shape)
    return collective_path(computation.root_instruction, replicas, partitions)


def _all_reduce(op: str, etype: PrimitiveType = F32, **attrs: Any) -> Callable[[Any], Any]:
    return lambda x: ops.AllReduce(x, binary_computation(op, etype), **attrs)


V4 = Shape.array_shape(F32, (4,))
# (build, operand shape, replicas, partitions, path name, groups: global device ids in group order, None = all)
PATHS = {
    "all_reduce_add": (_all_reduce("Add"), V4, 4, 1, "psum", None),
    # replica groups {0,1} {2,3} on 4 replicas x 2 partitions: one group per partition p, devices 2 r + p
    "all_reduce_pairs_in_each_partition": (_all_reduce("Add", replica_groups=[[0, 1], [2, 3]]), V4, 4, 2, "psum",
                                           ((0, 2), (4, 6), (1, 3), (5, 7))),
    "all_reduce_max_s32": (_all_reduce("Max", S32), Shape.array_shape(S32, (4,)), 2, 1, "pmax", None),
    "all_reduce_min_u8": (_all_reduce("Min", U8), Shape.array_shape(U8, (4,)), 2, 1, "pmin", None),
    # XLA's CPU all-reduce drops NaNs: a float Max gathers and folds
    "all_reduce_max_f32": (_all_reduce("Max"), V4, 2, 1, "all_gather+fold", None),
    "all_reduce_mul": (_all_reduce("Mul"), V4, 2, 1, "all_gather+fold", None),
    "all_reduce_or_pred": (_all_reduce("Or", PRED), Shape.array_shape(PRED, (4,)), 2, 1, "all_gather+fold", None),
    "all_reduce_single_device_groups": (_all_reduce("Add", replica_groups=[[0], [1]]), V4, 2, 1, "identity", None),
    "all_reduce_one_device": (_all_reduce("Add"), V4, 1, 1, "identity", None),
    "cross_replica_sum": (lambda x: ops.CrossReplicaSum(x), V4, 2, 2, "psum", ((0, 2), (1, 3))),
    # flattened ids: the groups are global device ids already
    "all_gather_flattened_ids": (lambda x: ops.AllGather(x, 0, 4, replica_groups=[[6, 4, 2, 0], [1, 3, 5, 7]],
                                                         channel_id=_channel(), use_global_device_ids=True),
                                 V4, 4, 2, "all_gather", ((6, 4, 2, 0), (1, 3, 5, 7))),
    # cross-replica-and-partition: replica group {0, 1} spans both partitions of both replicas, in id order
    "all_gather_replicas_and_partitions": (lambda x: ops.AllGather(
        x, 0, 4, replica_groups=[[0, 1]], channel_id=_channel(), use_global_device_ids=False), V4, 2, 2,
        "all_gather", None),
    "reduce_scatter_add": (lambda x: ops.ReduceScatter(x, binary_computation("Add"), 0, 2), V4, 2, 1,
                           "psum_scatter", None),
    "reduce_scatter_mul": (lambda x: ops.ReduceScatter(x, binary_computation("Mul"), 0, 2, replica_groups=[[1, 0]]),
                           V4, 2, 1, "all_to_all+fold", ((1, 0),)),
    # a channel: partition ids, one group per replica (devices 4 r + p)
    "all_to_all_cross_partition": (lambda x: ops.AllToAll(x, 0, 0, 4, channel_id=_channel()), V4, 2, 4, "all_to_all",
                                   ((0, 1, 2, 3), (4, 5, 6, 7))),
    "broadcast_groups_of_two": (lambda x: ops.CollectiveBroadcast(x, [[1, 0], [3, 2]]), V4, 4, 1, "psum_from_source",
                                ((1, 0), (3, 2))),
    "permute_replicas": (lambda x: ops.CollectivePermute(x, [(0, 1), (1, 0)]), V4, 2, 2, "ppermute", None),
}


@pytest.mark.parametrize("case", PATHS.values(), ids=PATHS.keys())
def test_the_path_of_each_group_mode(case: tuple) -> None:
    build, shape, replicas, partitions, name, groups = case
    path = _path(build, shape, replicas, partitions)
    assert (path.name, path.groups) == (name, groups)


def test_the_general_path_says_why() -> None:
    uneven = _path(_all_reduce("Min", replica_groups=[[3], [0, 1, 2]]), V4, 4)
    assert (uneven.name, uneven.why) == ("general", "groups of different sizes [1, 3]")
    # replica 2 is in no group (it gets zeros): psum's groups must hold every device
    partial = _path(lambda x: ops.CollectiveBroadcast(x, [[1, 0], [3]]), V4, 4)
    assert partial.name == "general"
    missing = _path(lambda x: ops.CollectiveBroadcast(x, [[1, 0]]), V4, 4)
    assert (missing.name, missing.why) == ("general", "the groups do not hold every device exactly once")
    assert missing.describe().startswith("general (gather every device's operand, static tables): the groups")


def test_describe_and_ppermute_axis() -> None:
    psum = _path(_all_reduce("Add", replica_groups=[[0, 1], [2, 3]]), V4, 4)
    assert psum.describe() == "psum over ('replica', 'partition'), groups [[0, 1], [2, 3]]"
    assert psum.axis_index_groups == [[0, 1], [2, 3]]
    assert _path(lambda x: ops.CollectivePermute(x, [(0, 1)], channel_id=_channel()), V4, 1, 2).axis == "partition"
    assert _path(lambda x: ops.CollectivePermute(x, [(0, 1)]), V4, 2, 2).describe() == "ppermute over 'replica'"


def test_paths_of_a_computation() -> None:
    def build(x: Any) -> Any:
        total = ops.AllReduce(x, binary_computation("Add"))
        return ops.AllGather(total, 0, 2, replica_groups=[[0, 1], [2, 3]])
    paths = paths_of(build_computation(build, V4), 4)
    assert [path.name for _, path in paths] == ["psum", "all_gather"]
    assert [path.groups for _, path in paths] == [None, ((0, 1), (2, 3))]


def test_groups_against_the_device_count_are_the_ops_errors() -> None:
    computation = build_computation(lambda x: ops.AllGather(x, 0, 2, replica_groups=[[0, 1]]), V4)
    with pytest.raises(OpError) as e:  # 4 replicas: replicas 2 and 3 are in no group
        collective_path(computation.root_instruction, 4, 1)
    assert (e.value.op, e.value.constraint, e.value.arg) == ("AllGather", "C9", "replica_groups")
    with pytest.raises(ValueError, match="Add is not a collective"):
        collective_path(build_computation(lambda x: ops.Add(x, x), V4).root_instruction, 1, 1)


def _run(comp: Any, per_device: list[list[Any]], replicas: int) -> list[np.ndarray]:
    return [r[0] for r in get_backend("jax").execute(comp, per_device, replicas=replicas)]


def test_a_float_max_keeps_nans_on_all_gather_fold() -> None:
    # 4 replicas; device d holds [d, -d, nan if d == 2 else 0, -inf]; Max per element: [3, 0, nan, -inf]
    comp = build_computation(_all_reduce("Max"), V4)
    args = [[np.float32([d, -d, np.nan if d == 2 else 0, -np.inf])] for d in range(4)]
    for out in _run(comp, args, 4):
        np.testing.assert_array_equal(out, np.float32([3, 0, np.nan, -np.inf]))


def test_pmax_of_integers() -> None:
    comp = build_computation(_all_reduce("Max", S32, replica_groups=[[0, 3], [1, 2]]), Shape.array_shape(S32, (2,)))
    args = [[np.int32([d, -d])] for d in range(4)]  # groups {0, 3}: [3, 0]; {1, 2}: [2, -1]
    assert [o.tolist() for o in _run(comp, args, 4)] == [[3, 0], [2, -1], [2, -1], [3, 0]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.bool_, np.int8])
def test_broadcast_moves_bits_exactly(dtype: Any) -> None:
    # groups {1, 0} and {3, 2} on 4 replicas: devices 0, 1 get device 1's operand, devices 2, 3 device 3's.
    # Device 1 holds -0.0, the smallest subnormal and a NaN (a float psum would give +0.0 and flush the subnormal).
    tiny = np.finfo(np.float32).smallest_subnormal
    values = {1: [-0.0, tiny, np.nan], 3: [1.5, -tiny, -np.inf]}
    if np.issubdtype(dtype, np.complexfloating):
        values = {1: [complex(-0.0, tiny), complex(np.nan, -0.0), 1j], 3: [complex(tiny, 2), -1, 0]}
    elif not np.issubdtype(dtype, np.floating):
        values = {1: [1, 0, 1], 3: [0, 1, 1]} if dtype == np.bool_ else {1: [-128, 127, -1], 3: [5, -6, 0]}
    held = [np.array(values.get(d, [7, 7, 7] if dtype != np.bool_ else [1, 1, 1]), dtype) for d in range(4)]
    comp = build_computation(lambda x: ops.CollectiveBroadcast(x, [[1, 0], [3, 2]]), Shape.array_shape(dtype, (3,)))
    out = _run(comp, [[h] for h in held], 4)
    want = [held[1], held[1], held[3], held[3]]
    for got, expected in zip(out, want):
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_collective_bytes_of_hlo_text() -> None:
    from benchmarks.collectives import collective_bytes, collective_signature

    hlo = ("ENTRY %main {\n"
           "  %p = f32[8,4]{1,0} parameter(0)\n"
           "  %b = f32[4]{0} bitcast(%p)\n"
           "  %all-gather = f32[32]{0} all-gather(%b), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}\n"
           "  %a2a = (bf16[2]{0}, bf16[2]{0}) all-to-all(%x, %y), replica_groups={{0,1}}\n"
           "  ROOT %t = f32[32]{0} copy(%all-gather)\n}\n")
    # all-gather: 32 * 4 bytes out, 4 * 4 in; all-to-all: 2 * 2 * 2 out, operands unknown here: 0
    assert collective_bytes(hlo) == 128 + 16 + 8
    assert collective_signature(hlo) == ["all-gather f32[32] replica_groups={{0,1,2,3,4,5,6,7}}",
                                         "all-to-all bf16[2],bf16[2] replica_groups={{0,1}}"]


def test_the_lowering_moves_the_bytes_of_jax_own_collective() -> None:
    from benchmarks.collectives import figures

    rows = figures(elements=16, calls=1)
    assert len(rows) == 8
    for row in rows:
        assert row["ours_bytes"] == row["jax_bytes"] > 0, row
        # jax's broadcast on CPU is a float psum of zeros and the source's value: not exact (it flushes
        # subnormals), so ours sums the bits as integers instead
        assert row["same_collectives"] == (row["name"] != "CollectiveBroadcast f32[16]"), row
    gather = next(r for r in rows if r["name"] == "AllGather f32[16]")
    assert gather["ours_bytes"] == (8 * 16 + 16) * 4  # result: 8 devices' 16 floats; operand: 16 floats
