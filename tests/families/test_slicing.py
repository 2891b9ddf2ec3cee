"""Slice, SliceInDim, DynamicSlice, DynamicUpdateSlice: hand-computed values on every backend, clamping
with each integer index type, constant start indices, and OpErrors for malformed arguments."""

import numpy as np
import pytest

from backend import PrimitiveType, XlaBuilder, get_backend, ops
from backend.errors import OpError
from backend.hlo.etypes import dtype_to_etype
from tests.support.running import array_parameter

BACKENDS = ["reference", "jax", "pallas"]
B = np.arange(12, dtype=np.float32).reshape(4, 3)  # the document's b: rows {0,1,2}, {3,4,5}, {6,7,8}, {9,10,11}
#: (index type, start indices for b, the clamped start they must act as) for a 2x2 window of b
CLAMPS = [
    (np.int8, (-128, 127), (0, 1)),
    (np.int16, (3, -300), (2, 0)),
    (np.int32, (2**31 - 1, 1), (2, 1)),
    (np.int64, (-(2**63), 2**63 - 1), (0, 1)),
    (np.uint8, (255, 0), (2, 0)),
    (np.uint16, (1, 65535), (1, 1)),
    (np.uint32, (2**32 - 1, 2**31), (2, 1)),
    (np.uint64, (2**64 - 1, 1), (2, 1)),
]


def _run(backend, builder, args):
    return get_backend(backend).execute(builder.build(), args)[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_slice_strides_default_and_given(backend):
    b = XlaBuilder("slice")
    x = array_parameter(b, 0, PrimitiveType.F32, (4, 3))
    ops.Tuple(b, [ops.Slice(x, (2, 1), (4, 3)),                         # the document's call, strides omitted
                  ops.Slice(x, [0, 0], [4, 3], [3, 2]),                  # the former xla_client call form
                  ops.Slice(operand=x, start_indices=(1, 2), limit_indices=(1, 3), strides=None)])
    strided, every_third, empty = get_backend(backend).execute(b.build(), [B])
    np.testing.assert_array_equal(strided, [[7, 8], [10, 11]])
    np.testing.assert_array_equal(every_third, [[0, 2], [9, 11]])
    assert empty.shape == (0, 1) and empty.dtype == np.float32


@pytest.mark.parametrize("backend", BACKENDS)
def test_slice_in_dim_columns(backend):
    b = XlaBuilder("slice_in_dim")
    ops.SliceInDim(array_parameter(b, 0, PrimitiveType.F32, (4, 3)), 1, 3, 1, 1)
    np.testing.assert_array_equal(_run(backend, b, [B]), [[1, 2], [4, 5], [7, 8], [10, 11]])


def _index_parameters(b, first):
    """Two scalar start-index parameters per CLAMPS entry, numbered from ``first``, and their values."""
    params, values = [], []
    for k, (dtype, starts, _) in enumerate(CLAMPS):
        params.append([array_parameter(b, first + 2 * k + j, dtype_to_etype(dtype), ()) for j in range(2)])
        values += [np.array(v, dtype) for v in starts]
    return params, values


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_slice_clamps_each_index_type(backend):
    b = XlaBuilder("dynamic_slice")
    x = array_parameter(b, 0, PrimitiveType.F32, (4, 3))
    indices, values = _index_parameters(b, 1)
    ops.Tuple(b, [ops.DynamicSlice(x, pair, (2, 2)) for pair in indices])
    outs = get_backend(backend).execute(b.build(), [B, *values])
    for out, (dtype, _, (r, c)) in zip(outs, CLAMPS):
        np.testing.assert_array_equal(out, B[r:r + 2, c:c + 2], err_msg=dtype.__name__)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_update_slice_clamps_each_index_type(backend):
    b = XlaBuilder("dynamic_update_slice")
    x = array_parameter(b, 0, PrimitiveType.F32, (4, 3))
    u = array_parameter(b, 1, PrimitiveType.F32, (2, 2))
    indices, values = _index_parameters(b, 2)
    ops.Tuple(b, [ops.DynamicUpdateSlice(x, u, pair) for pair in indices])
    outs = get_backend(backend).execute(b.build(), [B, -np.ones((2, 2), np.float32), *values])
    for out, (dtype, _, (r, c)) in zip(outs, CLAMPS):
        want = B.copy()
        want[r:r + 2, c:c + 2] = -1
        np.testing.assert_array_equal(out, want, err_msg=dtype.__name__)


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_start_indices_clamp_like_parameters(backend):
    # Constant indices may be folded at compile time; the fold must clamp exactly as the kernel does.
    b = XlaBuilder("constant_indices")
    x = ops.Constant(b, B)
    ops.Tuple(b, [ops.DynamicSlice(x, [ops.Constant(b, np.int32(-5)), ops.Constant(b, np.int32(7))], (3, 1)),
                  ops.DynamicUpdateSlice(x, ops.Constant(b, np.float32([[50, 60]])),
                                         [ops.Constant(b, np.uint64(2**64 - 1)), ops.Constant(b, np.uint64(1))])])
    sliced, updated = get_backend(backend).execute(b.build(), [])
    np.testing.assert_array_equal(sliced, [[2], [5], [8]])       # (-5, 7) -> (0, 2)
    np.testing.assert_array_equal(updated[3], [9, 50, 60])        # (2^64 - 1, 1) -> (3, 1)
    np.testing.assert_array_equal(updated[:3], B[:3])


def _operand(etype=PrimitiveType.F32, dims=(4, 3)):
    b = XlaBuilder("bad")
    return b, array_parameter(b, 0, etype, dims)


def _index(b, n, etype=PrimitiveType.S32):
    return array_parameter(b, n, etype, ())


MALFORMED = {
    "slice_start_not_ints": (lambda: ops.Slice(_operand()[1], ("a", 0), (4, 3)), "C1", "start_indices"),
    "slice_limit_scalar": (lambda: ops.Slice(_operand()[1], (0, 0), 4), "C1", "limit_indices"),
    "slice_strides_length": (lambda: ops.Slice(_operand()[1], (0, 0), (4, 3), (1,)), "C1", "strides"),
    "slice_strides_float": (lambda: ops.Slice(_operand()[1], (0, 0), (4, 3), (1, 1.0)), "C1", "strides"),
    "slice_negative_start": (lambda: ops.Slice(_operand()[1], (-1, 0), (4, 3)), "C2", "start_indices"),
    "slice_start_past_limit": (lambda: ops.Slice(_operand()[1], (2, 0), (1, 3)), "C2", "start_indices"),
    "slice_limit_past_size": (lambda: ops.Slice(_operand()[1], (0, 0), (4, 4)), "C3", "limit_indices"),
    "slice_zero_stride": (lambda: ops.Slice(_operand()[1], (0, 0), (4, 3), (0, 1)), "C4", "strides"),
    "slice_in_dim_dimno_none": (lambda: ops.SliceInDim(_operand()[1], 0, 1, 1, None), "C1", "dimno"),
    "slice_in_dim_dimno_range": (lambda: ops.SliceInDim(_operand()[1], 0, 1, 1, 5), "C1", "dimno"),
    "slice_in_dim_stride_str": (lambda: ops.SliceInDim(_operand()[1], 0, 1, "1", 0), "C4", "stride"),
    "slice_in_dim_negative_stride": (lambda: ops.SliceInDim(_operand()[1], 0, 1, -2, 0), "C4", "stride"),
    "dynamic_slice_sizes_negative": (lambda: _dynamic_slice((-1, 2)), "C3", "slice_sizes"),
    "dynamic_slice_sizes_none": (lambda: _dynamic_slice(None), "C3", "slice_sizes"),
    "dynamic_slice_sizes_too_large": (lambda: _dynamic_slice((5, 1)), "C3", "slice_sizes"),
    "dynamic_slice_sizes_length": (lambda: _dynamic_slice((1, 1, 1)), "C3", "slice_sizes"),
    "dynamic_slice_one_index": (lambda: _dynamic_slice((1, 1), n_indices=1), "C2", "start_indices"),
    "dynamic_slice_float_index": (lambda: _dynamic_slice((1, 1), index_type=PrimitiveType.F32), "C1",
                                  "start_indices"),
    "dynamic_update_slice_bigger": (lambda: _dynamic_update_slice((2, 4)), "C3", "update"),
    "dynamic_update_slice_type": (lambda: _dynamic_update_slice((2, 2), PrimitiveType.F64), "C1", "update"),
}


def _dynamic_slice(sizes, n_indices=2, index_type=PrimitiveType.S32):
    b, x = _operand()
    return ops.DynamicSlice(x, [_index(b, 1 + k, index_type) for k in range(n_indices)], sizes)


def _dynamic_update_slice(update_dims, update_type=PrimitiveType.F32):
    b, x = _operand()
    u = array_parameter(b, 1, update_type, update_dims)
    return ops.DynamicUpdateSlice(x, u, [_index(b, 2), _index(b, 3)])


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_bad_arguments_raise_op_error_naming_the_constraint(name):
    call, constraint, arg = MALFORMED[name]
    with pytest.raises(OpError) as info:
        call()
    assert (info.value.constraint, info.value.arg) == (constraint, arg), str(info.value)


def test_start_indices_as_one_array_is_an_op_error():
    b, x = _operand()
    with pytest.raises(OpError, match="start_indices"):
        ops.DynamicSlice(x, array_parameter(b, 1, PrimitiveType.S32, (2,)), (1, 1))


def test_result_shapes():
    b, x = _operand(PrimitiveType.BF16, (7, 3))
    assert str(b.get_shape(ops.Slice(x, (1, 0), (6, 3), (2, 3)))) == "bf16[3,1]"
    assert str(b.get_shape(ops.SliceInDim(x, 0, 7, 4, 0))) == "bf16[2,3]"
    assert str(b.get_shape(ops.DynamicSlice(x, [_index(b, 1, PrimitiveType.U8), _index(b, 2, PrimitiveType.U8)],
                                            (0, 3)))) == "bf16[0,3]"
