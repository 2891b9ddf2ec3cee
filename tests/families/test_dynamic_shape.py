"""Bounded dynamic dimensions through the ops: shape inference (their dynamism carried through any op), the
reference with runtime sizes (the operation-semantics document's SetDimensionSize example), and the jax
backend's refusal. Expected values are worked out by hand. (The Shape API of dynamic dimensions, printing and
parsing: tests/test_shapes_layout.py.)"""

import numpy as np
import pytest

from backend import OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.errors import RuntimeSizeError
from tests.support.computations import binary_computation

F32, S32 = PrimitiveType.F32, PrimitiveType.S32


def _dyn(dims, dynamic, etype=F32):
    return Shape.array_shape(etype, dims, dynamic_dimensions=dynamic)


def _reduce_all(x, init, op):
    return ops.Reduce([x], [ops.Constant(x.builder, np.float32(init))], binary_computation(op), [0])


# -- shape inference -------------------------------------------------------------------------------
def test_add_propagates_dynamism():
    b = XlaBuilder("add")
    x = ops.Parameter(b, 0, _dyn((5, 3), [True, False]), "x")
    y = ops.Parameter(b, 1, _dyn((5, 3), [False, True]), "y")
    assert str(ops.Add(x, y).shape()) == "f32[<=5,<=3]"
    assert str(ops.Add(x, ops.Constant(b, np.float32(1))).shape()) == "f32[<=5,3]"
    v = ops.Parameter(b, 2, Shape.array_shape(F32, (3,)), "v")
    assert str(ops.Mul(x, v, broadcast_dimensions=(1,)).shape()) == "f32[<=5,3]"
    assert str(ops.Neg(x).shape()) == "f32[<=5,3]"
    assert str(ops.Lt(x, y).shape()) == "pred[<=5,<=3]"
    assert str(ops.ConvertElementType(x, S32).shape()) == "s32[<=5,3]"


def test_degenerate_dimension_does_not_pass_its_dynamism_on():
    # XLA's table: <=1 with X gives X; 1 with <=X gives <=X.
    b = XlaBuilder("degenerate")
    one = ops.Parameter(b, 0, _dyn((1, 3), [True, False]), "one")
    four = ops.Parameter(b, 1, Shape.array_shape(F32, (4, 3)), "four")
    assert str(ops.Add(one, four).shape()) == "f32[4,3]"
    four_dyn = ops.Parameter(b, 2, _dyn((4, 3), [True, False]), "four_dyn")
    static_one = ops.Parameter(b, 3, Shape.array_shape(F32, (1, 3)), "static_one")
    assert str(ops.Add(static_one, four_dyn).shape()) == "f32[<=4,3]"


def test_reduce_and_broadcast_in_dim_propagate_dynamism():
    b = XlaBuilder("r")
    x = ops.Parameter(b, 0, _dyn((5, 3, 2), [True, False, True]), "x")
    r = ops.Reduce([x], [ops.Constant(b, np.float32(0))], binary_computation("Add"), [1])
    assert str(r.shape()) == "f32[<=5,<=2]"
    assert str(_reduce_all(ops.Parameter(b, 1, _dyn((4,), [True]), "y"), 0, "Add").shape()) == "f32[]"
    v = ops.Parameter(b, 2, _dyn((3,), [True]), "v")
    assert str(ops.BroadcastInDim(v, (2, 3), (1,)).shape()) == "f32[2,<=3]"


def test_select_and_clamp_propagate_dynamism():
    b = XlaBuilder("s")
    x = ops.Parameter(b, 0, _dyn((4,), [True]), "x")
    y = ops.Parameter(b, 1, Shape.array_shape(F32, (4,)), "y")
    assert str(ops.Select(ops.Lt(x, y), y, y).shape()) == "f32[<=4]"
    assert str(ops.Clamp(ops.Constant(b, np.float32(0)), x, ops.Constant(b, np.float32(1))).shape()) == "f32[<=4]"


def test_op_shapes():
    b = XlaBuilder("ops")
    x = ops.Parameter(b, 0, Shape.array_shape(F32, (10, 3)), "x")
    n = ops.Parameter(b, 1, Shape.scalar_shape(S32), "n")
    d = ops.SetDimensionSize(x, n, 0)
    assert str(d.shape()) == "f32[<=10,3]"
    assert str(ops.GetDimensionSize(d, 0).shape()) == "s32[]"
    assert str(ops.RemoveDynamicDimension(d, 0).shape()) == "f32[10,3]"
    assert str(ops.DynamicReshape(d, [n, n], (5, 6), (True, False)).shape()) == "f32[<=5,6]"


# -- the reference with runtime sizes ---------------------------------------------------------------
def _seed_program(size):
    c = XlaBuilder("seed")
    v = ops.Constant(c, np.arange(1, 11, dtype=np.float32))  # f32[10]{1, 2, ..., 10}
    padded = ops.SetDimensionSize(v, ops.Constant(c, np.int32(size)), 0)
    ops.Tuple(c, [_reduce_all(padded, 0, "Add"), _reduce_all(padded, 1, "Mul")])
    return c.build()


def test_seed_set_dimension_size_reductions():
    # The document: sum == 1 + 2 + 3 + 4 + 5, product == 1 * 2 * 3 * 4 * 5; with six, the sum is 1 + ... + 6.
    ref = get_backend("reference")
    total, product = ref.execute(_seed_program(5), [])
    assert total == 15 and product == 120
    total, product = ref.execute(_seed_program(6), [])
    assert total == 21 and product == 720


def test_elementwise_ops_work_on_the_runtime_size():
    c = XlaBuilder("ew")
    x = ops.Parameter(c, 0, _dyn((6,), [True]), "x")  # runtime size 4
    y = ops.Parameter(c, 1, Shape.array_shape(F32, (6,)), "y")  # static: cut to 4
    z = ops.Add(ops.Mul(x, y), ops.Constant(c, np.float32(1)))
    ops.Tuple(c, [z, ops.GetDimensionSize(z, 0)])
    out, size = get_backend("reference").execute(c.build(), [np.array([1, 2, 3, 4], np.float32),
                                                              np.array([10, 20, 30, 40, 50, 60], np.float32)])
    np.testing.assert_array_equal(out, [11, 41, 91, 161])
    assert size == 4 and size.dtype == np.int32


def test_dynamic_reshape_of_runtime_sized_operand():
    c = XlaBuilder("dr")
    x = ops.Parameter(c, 0, Shape.array_shape(S32, (8,)), "x")
    six = ops.Constant(c, np.int32(6))
    three = ops.Constant(c, np.int32(3))
    ops.DynamicReshape(ops.SetDimensionSize(x, six, 0), [three, ops.Constant(c, np.int32(2))], (4, 2), (True, False))
    out, = get_backend("reference").execute(c.build(), [np.arange(1, 9, dtype=np.int32)])
    np.testing.assert_array_equal(out, [[1, 2], [3, 4], [5, 6]])


def test_remove_dynamic_dimension_pads_past_the_runtime_size():
    c = XlaBuilder("rm")
    x = ops.Parameter(c, 0, Shape.array_shape(F32, (2, 4)), "x")
    ops.RemoveDynamicDimension(ops.SetDimensionSize(x, ops.Constant(c, np.int32(1)), 1), 1)
    out, = get_backend("reference").execute(c.build(), [np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.float32)])
    # Elements past the runtime size are implementation-defined; the reference gives 0.
    np.testing.assert_array_equal(out, [[1, 0, 0, 0], [5, 0, 0, 0]])


def test_runtime_size_outside_the_bound_is_our_error():
    c = XlaBuilder("oob")
    x = ops.Parameter(c, 0, Shape.array_shape(F32, (3,)), "x")
    n = ops.Parameter(c, 1, Shape.scalar_shape(S32), "n")
    ops.SetDimensionSize(x, n, 0)
    comp = c.build()
    for bad in (4, -1):
        with pytest.raises(RuntimeSizeError, match=r"outside \[0, 3\]") as e:
            get_backend("reference").execute(comp, [np.zeros(3, np.float32), np.int32(bad)])
        assert e.value.op == "SetDimensionSize" and e.value.constraint == "runtime-size"


def test_dynamic_parameter_takes_any_size_up_to_the_bound():
    c = XlaBuilder("param")
    x = ops.Parameter(c, 0, _dyn((4,), [True]), "x")
    _reduce_all(x, 0, "Add")
    comp = c.build()
    assert get_backend("reference").execute(comp, [np.array([1, 2], np.float32)])[0] == 3
    with pytest.raises(OpError, match="argument 0"):
        get_backend("reference").execute(comp, [np.ones(5, np.float32)])


def test_different_runtime_sizes_of_two_dynamic_operands():
    c = XlaBuilder("mismatch")
    x = ops.Parameter(c, 0, _dyn((4,), [True]), "x")
    y = ops.Parameter(c, 1, _dyn((4,), [True]), "y")
    ops.Add(x, y)
    with pytest.raises(RuntimeSizeError, match="different runtime sizes"):
        get_backend("reference").execute(c.build(), [np.ones(2, np.float32), np.ones(3, np.float32)])


def test_reference_names_ops_it_cannot_run_on_dynamic_shapes():
    c = XlaBuilder("dot")
    x = ops.Parameter(c, 0, _dyn((4, 3), [True, False]), "x")
    ops.Dot(x, ops.Parameter(c, 1, Shape.array_shape(F32, (3, 2)), "y"))
    reason = get_backend("reference").supports(c.build())
    assert reason and reason.startswith("Dot:") and "f32[<=4,3]" in reason


# -- jax -----------------------------------------------------------------------------------------
def test_jax_refuses_dynamic_programs_naming_the_op():
    reason = get_backend("jax").supports(_seed_program(5))
    assert reason and reason.startswith("SetDimensionSize:") and "f32[<=10]" in reason and "static sizes" in reason


def test_jax_get_dimension_size_of_static_dimension_is_a_constant():
    c = XlaBuilder("gds")
    x = ops.Parameter(c, 0, Shape.array_shape(F32, (2, 7)), "x")
    ops.GetDimensionSize(x, 1)
    comp = c.build()
    assert get_backend("jax").supports(comp) is None
    out, = get_backend("jax").execute(comp, [np.zeros((2, 7), np.float32)])
    assert out == 7 and out.dtype == np.int32
