"""Every example of the broadcasting document, as golden values worked out by hand, and its
illegal cases as errors."""

import numpy as np
import pytest

from backend import OpError, PrimitiveType, Shape, XlaBuilder, ops
from backend.hlo.broadcasting import BroadcastError, binary_result_dims
from tests.support.running import run_op

BACKENDS = ["reference", "jax"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_matrix_plus_vector(backend):
    out = run_op(backend, "Add", np.array([[1, 2, 3], [4, 5, 6]], np.int32), np.array([7, 8, 9], np.int32),
                 broadcast_dimensions=(1,))
    np.testing.assert_array_equal(out, [[8, 10, 12], [11, 13, 15]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalar(backend):
    out = run_op(backend, "Add", np.array([[1, 2, 3], [4, 5, 6]], np.int32), np.array(7, np.int32),
                 broadcast_dimensions=())
    np.testing.assert_array_equal(out, [[8, 9, 10], [11, 12, 13]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_3x3_both_ways(backend):
    zero = np.zeros((3, 3), np.int32)
    v = np.array([7, 8, 9], np.int32)
    np.testing.assert_array_equal(run_op(backend, "Add", zero, v, broadcast_dimensions=(1,)), [[7, 8, 9]] * 3)
    np.testing.assert_array_equal(run_op(backend, "Add", zero, v, broadcast_dimensions=(0,)),
                                  [[7, 7, 7], [8, 8, 8], [9, 9, 9]])


def test_2x3_with_dimension_0_is_invalid():
    with pytest.raises(OpError) as e:
        run_op("reference", "Add", np.zeros((2, 3), np.float32), np.zeros(3, np.float32), broadcast_dimensions=(0,))
    assert e.value.constraint == "C4" and e.value.op == "Add"


def test_rank_mismatch_requires_dimensions():
    with pytest.raises(OpError) as e:
        run_op("reference", "Add", np.zeros((2, 3), np.float32), np.zeros(3, np.float32), broadcast_dimensions=())
    assert e.value.constraint == "C2"


@pytest.mark.parametrize("backend", BACKENDS)
def test_cuboid_and_matrix(backend):
    # a 2x3x4 cuboid and a 3x4 matrix with broadcasting tuple (1, 2)
    cube = np.zeros((2, 3, 4), np.int32)
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = run_op(backend, "Add", cube, m, broadcast_dimensions=(1, 2))
    np.testing.assert_array_equal(out, [m, m])


@pytest.mark.parametrize("dims,size_t,size_v", [((2, 3), 4, 5), ((1, 2), 3, 4), ((0, 3), 2, 5)])
def test_formal_definition_pairs(dims, size_t, size_v):
    # MxNxPxQ = 2x3x4x5; a TxV matrix matched to dims (2,3), (1,2), (0,3)
    assert binary_result_dims((2, 3, 4, 5), (size_t, size_v), dims) == (2, 3, 4, 5)


def test_formal_definition_illegal_orders():
    # matching V to N and T to P (dims (2, 1)) is illegal; so is V to both P and N
    with pytest.raises(BroadcastError) as e:
        binary_result_dims((2, 3, 4, 5), (4, 3), (2, 1))
    assert e.value.rule == "dims_order"
    with pytest.raises(BroadcastError):
        binary_result_dims((2, 3, 4, 5), (4, 4), (2, 2))


@pytest.mark.parametrize("a,b,out", [((2, 1), (2, 3), (2, 3)), ((1, 2, 5), (7, 2, 5), (7, 2, 5)),
                                     ((7, 2, 5), (7, 1, 5), (7, 2, 5)), ((2, 1), (1, 3), (2, 3))])
def test_degenerate_examples(a, b, out):
    assert binary_result_dims(a, b) == out


def test_incompatible_degenerate():
    with pytest.raises(BroadcastError) as e:
        binary_result_dims((7, 2, 5), (7, 2, 6))
    assert e.value.rule == "incompatible"


@pytest.mark.parametrize("backend", BACKENDS)
def test_outer_operation(backend):
    out = run_op(backend, "Add", np.array([[1], [2]], np.int32), np.array([[10, 20, 30]], np.int32),
                 broadcast_dimensions=())
    np.testing.assert_array_equal(out, [[11, 21, 31], [12, 22, 32]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_composition_vector_and_1x2(backend):
    out = run_op(backend, "Add", np.array([1, 2, 3, 4], np.int32), np.array([[5, 6]], np.int32),
                 broadcast_dimensions=(0,))
    np.testing.assert_array_equal(out, [[6, 7], [7, 8], [8, 9], [9, 10]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_composition_1x2_and_4x3x1(backend):
    # a 1x2 matrix added to a 4x3x1 array with broadcast dimensions (1, 2) gives 4x3x2
    big = np.arange(12, dtype=np.int32).reshape(4, 3, 1) * 10
    small = np.array([[1, 2]], np.int32)
    out = run_op(backend, "Add", big, small, broadcast_dimensions=(1, 2))
    assert out.shape == (4, 3, 2)
    expected = np.array([[[10 * (3 * i + j) + k for k in (1, 2)] for j in range(3)] for i in range(4)])
    np.testing.assert_array_equal(out, expected)
    assert binary_result_dims((1, 2), (4, 3, 1), (1, 2)) == (4, 3, 2)


def test_broadcast_error_names_values():
    b = XlaBuilder("e")
    x = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, (4, 3)), "x")
    y = ops.Parameter(b, 1, Shape.array_shape(PrimitiveType.F32, (3, 4)), "y")
    with pytest.raises(OpError, match=r"Add: C4 violated .*shapes \[4, 3\] and \[3, 4\] are incompatible") as e:
        ops.Add(x, y)
    assert e.value.values == {"lhs": "f32[4,3]", "rhs": "f32[3,4]", "broadcast_dimensions": []}
