import numpy as np

from backend import Shape, XlaBuilder, ops
from backend.hlo.reducers import binary_reducer_name, select_comparison


def _binary(op, shape=(), swap=False, **kw):
    b = XlaBuilder(op.lower())
    x = ops.Parameter(b, 0, Shape.array_shape(np.float32, shape), "x")
    y = ops.Parameter(b, 1, Shape.array_shape(np.float32, shape), "y")
    getattr(ops, op)(*((y, x) if swap else (x, y)), **kw)
    return b.build()


def test_reducers_are_recognised():
    assert binary_reducer_name(_binary("Add")) == "add"
    assert binary_reducer_name(_binary("Max", swap=True)) == "max"
    assert binary_reducer_name(_binary("Sub")) is None
    assert binary_reducer_name(_binary("Add", shape=(2,))) is None


def test_select_comparisons_are_recognised():
    assert select_comparison(_binary("Ge")) == "ge"
    assert select_comparison(_binary("Compare", broadcast_dimensions=(), direction="GT")) == "gt"
    assert select_comparison(_binary("Ge", swap=True)) is None
    assert select_comparison(_binary("Add")) is None
