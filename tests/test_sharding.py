"""XlaBuilder.set_sharding / clear_sharding: xla_client's OpSharding, checked, shown as HLO's sharding={...}."""

import numpy as np
import pytest

from backend import OpError, OpSharding, Shape, XlaBuilder, get_backend, ops


def _sharding(kind, dims=(), devices=(), **kw):
    s = OpSharding()
    s.type = kind
    s.tile_assignment_dimensions = list(dims)
    s.tile_assignment_devices = list(devices)
    for k, v in kw.items():
        setattr(s, k, v)
    return s


def _param(b):
    return ops.Parameter(b, 0, Shape.array_shape(np.dtype("float32"), (4, 2)), "x")


@pytest.mark.parametrize("sharding,text", [
    (_sharding(OpSharding.Type.REPLICATED), "sharding={replicated}"),
    (_sharding(OpSharding.Type.MAXIMAL, devices=[3]), "sharding={maximal device=3}"),
    (_sharding(OpSharding.Type.OTHER, [2, 1], [1, 0]), "sharding={devices=[2,1]1,0}"),
    (_sharding(OpSharding.Type.OTHER, [2, 1, 2], [0, 1, 2, 3], replicate_on_last_tile_dim=True),
     "sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"),
    (_sharding(OpSharding.Type.MANUAL), "sharding={manual}"),
])
def test_ops_added_while_set_carry_the_sharding(sharding, text):
    b = XlaBuilder("s")
    x = _param(b)
    b.set_sharding(sharding)
    y = ops.Neg(x)
    b.clear_sharding()
    ops.Abs(y)
    lines = b.build().as_hlo_text().splitlines()
    assert [line for line in lines if "sharding=" in line] == [line for line in lines if " neg(" in line]
    assert text in next(line for line in lines if " neg(" in line)


def test_a_sharding_changes_no_value():
    b = XlaBuilder("s")
    b.set_sharding(_sharding(OpSharding.Type.OTHER, [2, 1], [0, 1]))
    ops.Neg(_param(b))
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    for name in ("reference", "jax"):
        np.testing.assert_array_equal(get_backend(name).execute(b.build(), [x])[0], -x)


def test_the_builder_keeps_a_frozen_copy():
    s = _sharding(OpSharding.Type.MAXIMAL, devices=[0])
    b = XlaBuilder("s")
    b.set_sharding(s)
    s.tile_assignment_devices = [5]  # the caller's object may change afterwards
    ops.Neg(_param(b))
    assert "sharding={maximal device=0}" in b.build().as_hlo_text()


@pytest.mark.parametrize("bad,words", [
    (object(), "expected an OpSharding"),
    (_sharding(7), "OpSharding.type must be one of"),
    (_sharding(OpSharding.Type.MAXIMAL, devices=[0, 1]), "names exactly one device"),
    (_sharding(OpSharding.Type.OTHER, [2, 2], [0, 1]), "must multiply to the number of tile_assignment_devices, 2"),
    (_sharding(OpSharding.Type.OTHER, [2], [1, 1]), "distinct device ids"),
    (_sharding(OpSharding.Type.TUPLE), "needs tuple_shardings"),
])
def test_a_malformed_sharding_is_an_op_error(bad, words):
    with pytest.raises(OpError, match="XlaBuilder.set_sharding") as e:
        XlaBuilder("s").set_sharding(bad)
    assert words in str(e.value)
