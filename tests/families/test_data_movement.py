"""Reshape, Collapse, Transpose, Rev, ConcatInDim, Pad: hand-computed values on every backend, the
call forms of xla_client, layouts, PaddingConfig, dynamic-dimension propagation, and OpErrors for
malformed attributes."""

import types

import ml_dtypes
import numpy as np
import pytest

from backend import (
    PaddingConfig,
    PaddingConfigDimension,
    PrimitiveType,
    Shape,
    XlaBuilder,
    get_backend,
    make_padding_config,
    ops,
)
from backend.errors import OpError

BACKENDS = ["reference", "jax", "pallas"]
F32 = PrimitiveType.F32


def _param(b, n, dims, etype=F32, layout=None):
    return ops.Parameter(b, n, Shape.array_shape(etype, dims, layout), f"p{n}")


def _run_everywhere(computation, args):
    """The results on every backend, checked to be identical."""
    outs = {name: get_backend(name).execute(computation, args) for name in BACKENDS}
    for name, out in outs.items():
        for got, want in zip(out, outs["reference"]):
            np.testing.assert_array_equal(got, want, err_msg=name)
    return outs["reference"]


def test_issue_example_runs_identically_everywhere():
    c = XlaBuilder("patches")
    x = ops.Parameter(c, 0, Shape.array_shape(F32, (4, 6)), "x")
    y = ops.Transpose(ops.Reshape(x, (2, 2, 6)), (0, 2, 1))
    z = ops.Pad(y, ops.Constant(c, np.float32(0)), make_padding_config([(0, 0, 0), (1, -1, 1), (0, 0, 0)]))
    out = ops.ConcatInDim(c, [ops.Rev(z, (2,)), ops.Slice(z, (0, 0, 0), (2, 11, 2), (1, 1, 2))], 2)
    assert str(c.get_shape(out)) == "f32[2,11,3]"
    result, = _run_everywhere(c.build(), [np.arange(24, dtype=np.float32).reshape(4, 6)])
    # By hand: y[a, col, b] = 12a + 6b + col; the pad puts column col at k = 2 col + 1 (k = 11, col 5, is
    # cut by the high edge -1) with zeros between; Rev swaps b; the strided slice keeps b = 0.
    expected = np.zeros((2, 11, 3), np.float32)
    for a in range(2):
        for col in range(5):
            expected[a, 2 * col + 1] = [12 * a + 6 + col, 12 * a + col, 12 * a + col]
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reshape_call_forms(backend):
    b = XlaBuilder("reshape")
    x = _param(b, 0, (2, 3))
    forms = [ops.Reshape(x, (3, 2)),                                  # the document's Reshape(operand, dimensions)
             ops.Reshape(x, new_sizes=(3, 2)),                        # xla_client's Reshape(operand, new_sizes)
             ops.Reshape(x, (1, 0), (3, 2)),                          # the older form: transpose first
             ops.Reshape(shape=Shape.array_shape(F32, (3, 2)), operand=x),  # the document's Reshape(shape, operand)
             ops.Reshape(x, dimensions=[0, 1], new_sizes=[6])]
    ops.Tuple(b, forms)
    out = get_backend(backend).execute(b.build(), [np.array([[1, 2, 3], [4, 5, 6]], np.float32)])
    np.testing.assert_array_equal(out[0], [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(out[1], [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(out[2], [[1, 4], [2, 5], [3, 6]])
    np.testing.assert_array_equal(out[3], [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(out[4], [1, 2, 3, 4, 5, 6])


def test_reshape_is_logical_whatever_the_layout():
    b = XlaBuilder("layout")
    x = _param(b, 0, (2, 3), layout=(0, 1))  # column-major: memory holds 1, 4, 2, 5, 3, 6
    ops.Reshape(x, (3, 2))
    out, = _run_everywhere(b.build(), [np.array([[1, 2, 3], [4, 5, 6]], np.float32)])
    np.testing.assert_array_equal(out, [[1, 2], [3, 4], [5, 6]])  # index order, not memory order


def test_transpose_result_layout_keeps_memory_order():
    b = XlaBuilder("t")
    default = ops.Transpose(_param(b, 0, (2, 3, 4)), (2, 0, 1))
    column_major = ops.Transpose(_param(b, 1, (2, 3), layout=(0, 1)), (1, 0))
    # operand dims (0, 1, 2) become result dims (1, 2, 0); minor-to-major (2, 1, 0) becomes (0, 2, 1)
    assert b.get_shape(default).layout().minor_to_major == (0, 2, 1)
    assert b.get_shape(column_major).layout().minor_to_major == (1, 0)  # a row-major f32[3,2]: a bitcast


def test_collapse_seed_values_and_shapes():
    b = XlaBuilder("collapse")
    v = _param(b, 0, (4, 2, 3))
    ops.Tuple(b, [ops.Collapse(v, (0, 1)), ops.Collapse(v, [1, 2]), ops.Collapse(v, (0, 1, 2))])
    seed_v = np.array([[[10, 11, 12], [15, 16, 17]], [[20, 21, 22], [25, 26, 27]],
                       [[30, 31, 32], [35, 36, 37]], [[40, 41, 42], [45, 46, 47]]], np.float32)
    v01, v12, v012 = _run_everywhere(b.build(), [seed_v])
    assert v01.shape == (8, 3) and v01[1].tolist() == [15, 16, 17]
    assert v12.shape == (4, 6) and v12[1].tolist() == [20, 21, 22, 25, 26, 27]
    assert v012[-4:].tolist() == [42, 45, 46, 47]


def test_rev_and_pad_of_zero_size_and_rank0():
    b = XlaBuilder("edge")
    empty = _param(b, 0, (0, 3))
    scalar = _param(b, 1, ())
    ops.Tuple(b, [ops.Rev(empty, (0, 1)), ops.Pad(empty, scalar, [(1, 1, 5), (0, -1, 0)]),
                  ops.Pad(scalar, scalar, []), ops.Rev(scalar, ())])
    rev, padded, pad0, rev0 = _run_everywhere(b.build(), [np.zeros((0, 3), np.float32), np.float32(2.5)])
    assert rev.shape == (0, 3)
    np.testing.assert_array_equal(padded, np.full((2, 2), 2.5, np.float32))
    assert pad0 == 2.5 and rev0 == 2.5


def test_concat_of_two_bit_pieces_inside_a_byte():
    # XLA on the CPU aborts on s2[2] ++ s2[3]; the jax lowering joins them as s8.
    b = XlaBuilder("concat")
    s2 = PrimitiveType.S2
    ops.ConcatInDim(b, [_param(b, 0, (2,), s2), _param(b, 1, (3,), s2), _param(b, 2, (1,), s2)], 0)
    args = [np.array(v, ml_dtypes.int2) for v in ([1, -2], [0, -1, 1], [-2])]
    out, = _run_everywhere(b.build(), args)
    assert out.dtype == ml_dtypes.int2 and out.astype(int).tolist() == [1, -2, 0, -1, 1, -2]


@pytest.mark.parametrize("config", [
    [(1, -1, 1)],
    PaddingConfig([PaddingConfigDimension(1, -1, 1)]),
    types.SimpleNamespace(dimensions=[types.SimpleNamespace(edge_padding_low=1, edge_padding_high=-1,
                                                            interior_padding=1)]),
    [np.array([1, -1, 1])],
])
def test_padding_config_forms(config):
    b = XlaBuilder("pad")
    ops.Pad(_param(b, 0, (3,), PrimitiveType.S32), ops.Constant(b, np.int32(9)), config)
    out = get_backend("reference").execute(b.build(), [np.array([1, 2, 3], np.int32)])[0]
    np.testing.assert_array_equal(out, [9, 1, 9, 2, 9])


def test_padding_config_is_xla_clients_and_copied():
    config = PaddingConfig()
    dim = PaddingConfigDimension()
    dim.edge_padding_low = 2
    config.dimensions.append(dim)
    assert make_padding_config([(2, 0, 0)]) == config
    assert str(make_padding_config([(0, 0, 0), (1, -1, 1)])) == "0_0_0x1_-1_1"
    b = XlaBuilder("pad")
    ops.Pad(_param(b, 0, (1,)), ops.Constant(b, np.float32(0)), config)
    dim.edge_padding_low = 5  # a later change to the caller's config does not reach the built op
    out = get_backend("reference").execute(b.build(), [np.array([7], np.float32)])[0]
    np.testing.assert_array_equal(out, [0, 0, 7])


@pytest.mark.parametrize("build, constraint", [
    (lambda b, x: ops.Pad(x, ops.Constant(b, np.float32(0)), [(0, 0)] * 2), "C1"),
    (lambda b, x: ops.Pad(x, ops.Constant(b, np.float32(0)), [(0, 0, "1")] * 2), "C1"),
    (lambda b, x: ops.Pad(x, ops.Constant(b, np.float32(0)), None), "C1"),
    (lambda b, x: ops.Pad(x, ops.Constant(b, np.float32(0)), types.SimpleNamespace(dimensions=3)), "C1"),
    (lambda b, x: ops.Pad(x, ops.Constant(b, np.float32(0)), [(0, 0, -2), (0, 0, 0)]), "C2"),
    (lambda b, x: ops.Pad(x, ops.Constant(b, np.float32(0)), [(-3, 0, 0), (0, 0, 0)]), "C3"),
    (lambda b, x: ops.Transpose(x, None), "C2"),
    (lambda b, x: ops.Transpose(x, (1, 1)), "C2"),
    (lambda b, x: ops.Rev(x, [[0]]), "C1"),
    (lambda b, x: ops.Rev(x, (1, 1)), "C2"),
    (lambda b, x: ops.Collapse(x, (0, None)), "C1"),
    (lambda b, x: ops.Reshape(x, (-1, -6)), "C2"),
    (lambda b, x: ops.Reshape(x, "23"), "C1"),
    (lambda b, x: ops.Reshape(x, (1, 0), (7,)), "C3"),
    (lambda b, x: ops.Reshape(x, shape="f32[<=6]x"), "C5"),
    (lambda b, x: ops.ConcatInDim(b, [x, x], 2.0), "C5"),
    (lambda b, x: ops.ConcatInDim(b, x, 0), "arg-type"),
])
def test_malformed_attributes_raise_op_error(build, constraint):
    b = XlaBuilder("bad")
    x = _param(b, 0, (2, 3))
    with pytest.raises(OpError) as e:
        build(b, x)
    assert e.value.constraint == constraint, str(e.value)


def test_dynamic_dimensions_propagate():
    b = XlaBuilder("dyn")
    x = ops.Parameter(b, 0, Shape.array_shape(F32, (5, 3), dynamic_dimensions=[True, False]), "x")
    y = ops.Parameter(b, 1, Shape.array_shape(F32, (2, 3)), "y")
    assert str(b.get_shape(ops.Transpose(x, (1, 0)))) == "f32[3,<=5]"
    assert str(b.get_shape(ops.Rev(x, (0,)))) == "f32[<=5,3]"
    assert str(b.get_shape(ops.ConcatInDim(b, [x, y], 0))) == "f32[<=7,3]"
    assert str(b.get_shape(ops.Collapse(x, (0, 1)))) == "f32[<=15]"
    pad = ops.Pad(x, ops.Constant(b, np.float32(0)), [(1, 0, 0), (0, 0, 0)])
    assert str(b.get_shape(pad)) == "f32[<=6,3]"
