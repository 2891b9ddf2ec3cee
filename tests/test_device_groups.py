"""backend/hlo/device_groups.py: the group modes of the collectives, the device groups and source-target pairs
they give for replicas and partitions, and their checks (pure functions; the ops themselves are in
tests/families/test_collectives.py, test_collective_exchange.py and test_point_to_point.py)."""

import pytest

from backend import OpError
from backend.hlo.device_groups import (
    GroupMode,
    device_groups,
    group_mode,
    group_of,
    source_target_pairs,
)


def test_group_modes():
    assert group_mode("AllReduce", None, None) is GroupMode.CROSS_REPLICA
    assert group_mode("AllReduce", 1, False) is GroupMode.CROSS_REPLICA_AND_PARTITION
    assert group_mode("AllReduce", 1, True) is GroupMode.FLATTENED_ID
    assert group_mode("AllToAll", None) is GroupMode.CROSS_REPLICA
    assert group_mode("AllToAll", 5) is GroupMode.CROSS_PARTITION
    with pytest.raises(OpError) as e:
        group_mode("AllReduce", None, True, constraint="C4")
    assert (e.value.op, e.value.constraint, e.value.arg) == ("AllReduce", "C4", "use_global_device_ids")


def test_device_groups_of_every_mode():
    # 2 replicas x 2 partitions: device d = 2 r + p
    assert device_groups("X", GroupMode.CROSS_REPLICA, [], 2, 2, constraint="C1") == [[0, 2], [1, 3]]
    assert device_groups("X", GroupMode.CROSS_PARTITION, [], 2, 2, constraint="C1") == [[0, 1], [2, 3]]
    assert device_groups("X", GroupMode.CROSS_REPLICA_AND_PARTITION, [[0], [1]], 2, 2, constraint="C1") == \
        [[0, 1], [2, 3]]
    assert device_groups("X", GroupMode.CROSS_REPLICA_AND_PARTITION, [[1, 0]], 2, 2, constraint="C1") == \
        [[2, 3, 0, 1]]
    assert device_groups("X", GroupMode.FLATTENED_ID, [[0, 3], [1, 2]], 2, 2, constraint="C1") == [[0, 3], [1, 2]]
    # the seed's example: 2 replicas, 4 partitions, global ids {0,1,4,5}, {2,3,6,7}
    assert device_groups("X", GroupMode.FLATTENED_ID, [[0, 1, 4, 5], [2, 3, 6, 7]], 2, 4, constraint="C1") == \
        [[0, 1, 4, 5], [2, 3, 6, 7]]
    # cross-replica groups run within every partition: 4 replicas x 2 partitions, groups {0,2}, {1,3}
    assert device_groups("X", GroupMode.CROSS_REPLICA, [[0, 2], [1, 3]], 4, 2, constraint="C1") == \
        [[0, 4], [2, 6], [1, 5], [3, 7]]
    assert group_of([[0, 4], [2, 6], [1, 5], [3, 7]], 6) == ([2, 6], 1)


@pytest.mark.parametrize("groups, problem", [
    ([[0, 1, 2]], "names replica id 2"),
    ([[0], [0, 1]], "in two replica groups"),
    ([[0]], "ids [1] are in no replica group"),
    ([[0], []], "group 1 is empty"),
])
def test_device_groups_are_checked(groups, problem):
    with pytest.raises(OpError) as e:
        device_groups("AllReduce", GroupMode.CROSS_REPLICA, groups, 2, 1, constraint="C3")
    assert e.value.constraint == "C3" and e.value.arg == "replica_groups" and problem in str(e.value)


def test_uniform_group_sizes_where_required():
    with pytest.raises(OpError, match="different sizes"):
        device_groups("AllGather", GroupMode.CROSS_REPLICA, [[0], [1, 2]], 3, 1, constraint="C5", uniform=True)


def test_source_target_pairs():
    # cross-replica pairs apply within each partition; cross-partition pairs within each replica
    assert source_target_pairs("CollectivePermute", GroupMode.CROSS_REPLICA, [(0, 1)], 2, 2, constraint="C2") == \
        [(0, 2), (1, 3)]
    assert source_target_pairs("CollectivePermute", GroupMode.CROSS_PARTITION, [(1, 0)], 2, 2, constraint="C2") == \
        [(1, 0), (3, 2)]
    with pytest.raises(OpError, match="replica id 2"):
        source_target_pairs("CollectivePermute", GroupMode.CROSS_REPLICA, [(0, 2)], 2, 1, constraint="C2")
