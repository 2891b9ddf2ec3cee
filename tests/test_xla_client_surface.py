"""The former xla_client surface, tested the way xla_client's own tests were written: builder-first
calls, proto-style value types filled in by append, PaddingType windows, op metadata. Expected values
are worked out by hand (in the comments); every computation runs on reference and jax."""

import inspect
import math
from pathlib import Path

import numpy as np
import pytest

import backend as xla_client
from backend import OpError, PrimitiveType, Shape, UnsupportedError, XlaBuilder, XlaRuntimeError, get_backend, ops
from backend.completeness import load_checked
from backend.errors import SpecError
from docgen import porting_table as xla_client_surface
from specs import loader
from tests.support.computations import binary_computation

F32, S32 = PrimitiveType.F32, PrimitiveType.S32
BACKENDS = ["reference", "jax"]


def _run(backend, c, *args, root=None):
    return get_backend(backend).execute(c.build(root), list(args))


def _f32(values):
    return np.array(values, np.float32)


# -- ops in xla_client's call forms ----------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_builder_first(backend):
    c = XlaBuilder("reduce")
    x = ops.Constant(c, _f32([[1, 2, 3], [4, 5, 6]]))
    ops.Reduce(c, [x], [ops.Constant(c, np.float32(0))], binary_computation(ops.Add), [0])
    np.testing.assert_array_equal(_run(backend, c)[0], [5, 7, 9])  # column sums


@pytest.mark.parametrize("backend", BACKENDS)
def test_call_tuple_and_get_tuple_element_builder_first(backend):
    c = XlaBuilder("call")
    a, b = ops.Constant(c, _f32([1, 2])), ops.Constant(c, _f32([10, 20]))
    s = ops.Call(c, binary_computation(ops.Add, F32), [ops.Constant(c, np.float32(3)), ops.Constant(c, np.float32(4))])
    t = ops.Tuple(c, [a, b, s])
    ops.Add(ops.GetTupleElement(t, 1), ops.GetTupleElement(t, 2))
    np.testing.assert_array_equal(_run(backend, c)[0], [17, 27])  # [10, 20] + (3 + 4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_iota_both_overloads(backend):
    c = XlaBuilder("iota")
    vector = ops.Iota(c, S32, 4)
    matrix = ops.Iota(c, Shape.array_shape(F32, (2, 3)), 1)
    out = _run(backend, c, root=ops.Tuple(c, [vector, matrix]))
    np.testing.assert_array_equal(out[0], np.array([0, 1, 2, 3], np.int32))
    np.testing.assert_array_equal(out[1], [[0, 1, 2], [0, 1, 2]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_broadcasts_reshape_and_constant_literal_in_xla_client_names(backend):
    c = XlaBuilder("bcast")
    x = ops.ConstantLiteral(c, _f32([1, 2, 3]))
    by_sizes = ops.Broadcast(x, sizes=[2])
    in_dim = ops.BroadcastInDim(x, shape=[2, 3], broadcast_dimensions=[1])
    reshaped = ops.Reshape(Shape.array_shape(F32, (3, 2)), ops.Add(by_sizes, in_dim))   # the seed's form
    flat = ops.Reshape(reshaped, new_sizes=[6])
    out = _run(backend, c, root=ops.Tuple(c, [reshaped, flat]))
    np.testing.assert_array_equal(out[0], [[2, 4], [6, 2], [4, 6]])   # 2 * [[1,2,3],[1,2,3]] read row-major
    np.testing.assert_array_equal(out[1], [2, 4, 6, 2, 4, 6])


@pytest.mark.parametrize("backend", BACKENDS)
def test_parameter_keywords_and_binary_op_default_broadcast_dimensions(backend):
    c = XlaBuilder("param")
    x = ops.Parameter(c, parameter_number=0, shape=Shape.array_shape(F32, (2,)), name="x",
                      replicated_at_leaf_buffers=[True])
    ops.Mul(x, x, None)
    assert c.get_program_shape().parameter_names() == ["x"]
    np.testing.assert_array_equal(_run(backend, c, _f32([3, -2]))[0], [9, 4])


def test_parameter_replication_needs_one_entry_per_leaf():
    c = XlaBuilder("param")
    with pytest.raises(OpError) as e:
        ops.Parameter(c, 0, Shape.tuple_shape([Shape.array_shape(F32, (2,)), Shape.scalar_shape(S32)]), "t", [True])
    assert (e.value.constraint, e.value.arg) == ("C3", "replicated_at_leaf_buffers")


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_window_with_general_padding_same(backend):
    c = XlaBuilder("rw")
    x = ops.Constant(c, _f32([1, 2, 3, 4, 5]))
    pads = xla_client.window_padding_type_to_pad_values(xla_client.PaddingType.SAME, [5], [2], [2])
    assert pads == [(0, 1)]   # 3 windows need 6 elements: the one extra goes high
    ops.ReduceWindowWithGeneralPadding(x, ops.Constant(c, np.float32(0)), binary_computation(ops.Add), [2], [2],
                                       [1], [1], pads)
    np.testing.assert_array_equal(_run(backend, c)[0], [3, 7, 5])   # [1,2], [3,4], [5,pad 0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_window_with_general_padding_2d_max_same(backend):
    c = XlaBuilder("rw2")
    x = ops.Constant(c, _f32([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))
    pads = xla_client.window_padding_type_to_pad_values("SAME", [3, 3], [2, 2], [1, 1])
    assert pads == [(0, 1), (0, 1)]
    ops.ReduceWindowWithGeneralPadding(x, ops.Constant(c, np.float32(-np.inf)), binary_computation(ops.Max),
                                       window_dimensions=[2, 2], window_strides=[1, 1], base_dilations=[1, 1],
                                       window_dilations=[1, 1], padding=pads)
    np.testing.assert_array_equal(_run(backend, c)[0], [[5, 6, 6], [8, 9, 9], [8, 9, 9]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_window_with_general_padding_variadic(backend):
    sub = XlaBuilder("sum_and_max")
    a, b, s, m = (ops.Parameter(sub, k, Shape.scalar_shape(F32)) for k in range(4))
    ops.Tuple(sub, [ops.Add(a, s), ops.Max(b, m)])
    c = XlaBuilder("rw3")
    x, y = ops.Constant(c, _f32([1, 2, 3])), ops.Constant(c, _f32([3, 1, 2]))
    ops.ReduceWindowWithGeneralPadding([x, y], [ops.Constant(c, np.float32(0)), ops.Constant(c, np.float32(-np.inf))],
                                       sub.build(), [2], [1], [1], [1], [(0, 0)])
    out = _run(backend, c)
    np.testing.assert_array_equal(out[0], [3, 5])   # 1+2, 2+3
    np.testing.assert_array_equal(out[1], [3, 2])   # max(3,1), max(1,2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_select_and_scatter_with_general_padding(backend):
    c = XlaBuilder("sas")
    operand = ops.Constant(c, _f32([1, 5, 2, 3]))
    source = ops.Constant(c, _f32([10, 20]))
    ops.SelectAndScatterWithGeneralPadding(operand, binary_computation(ops.Ge), [2], [2], [(0, 0)], source,
                                           ops.Constant(c, np.float32(0)), binary_computation(ops.Add))
    np.testing.assert_array_equal(_run(backend, c)[0], [0, 10, 0, 20])   # the max of [1,5] and of [2,3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_scatter_single_array_and_gather_with_proto_dimension_numbers(backend):
    c = XlaBuilder("scatter")
    x = ops.Constant(c, _f32([1, 2, 3, 4]))
    indices = ops.Constant(c, np.array([[1], [3]], np.int32))
    sdn = xla_client.ScatterDimensionNumbers()
    sdn.inserted_window_dims.append(0)
    sdn.scatter_dims_to_operand_dims.append(0)
    sdn.index_vector_dim = 1
    scattered = ops.Scatter(x, indices, ops.Constant(c, _f32([10, 20])), binary_computation(ops.Add), sdn)
    gdn = xla_client.GatherDimensionNumbers()
    gdn.collapsed_slice_dims.append(0)
    gdn.start_index_map.append(0)
    gdn.index_vector_dim = 1
    gathered = ops.Gather(a=scattered, start_indices=ops.Constant(c, np.array([[3], [0]], np.int32)),
                          dimension_numbers=gdn, slice_sizes=[1])
    out = _run(backend, c, root=ops.Tuple(c, [scattered, gathered]))
    np.testing.assert_array_equal(out[0], [1, 12, 3, 24])
    np.testing.assert_array_equal(out[1], [24, 1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_dot_general_with_appended_dimension_numbers_and_precision(backend):
    c = XlaBuilder("dot")
    lhs = ops.Constant(c, _f32([[1, 2, 3], [4, 5, 6]]))
    rhs = ops.Constant(c, _f32([[1, 0], [0, 1], [1, 1]]))
    dn = xla_client.DotDimensionNumbers()
    dn.lhs_contracting_dimensions.append(1)
    dn.rhs_contracting_dimensions.append(0)
    pc = xla_client.PrecisionConfig()
    pc.operand_precision.append(xla_client.PrecisionConfig.Precision.HIGHEST)
    pc.operand_precision.append(xla_client.PrecisionConfig_Precision.HIGHEST)
    ops.DotGeneral(lhs, rhs, dn, pc)
    dn.lhs_contracting_dimensions.append(0)   # the op kept its own copy
    comp = c.build()
    assert "lhs_contracting_dims={1}" in comp.as_hlo_text()
    np.testing.assert_array_equal(get_backend(backend).execute(comp, [])[0], [[4, 5], [10, 11]])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("numbers", ["strings", "proto"])
def test_conv_general_dilated_same_padding(backend, numbers):
    if numbers == "strings":
        dn = xla_client.make_convolution_dimension_numbers(("NWC", "WIO", "NWC"), 1)
        lhs, rhs = _f32([1, 2, 3, 4]).reshape(1, 4, 1), np.ones((3, 1, 1), np.float32)
    else:
        dn = xla_client.ConvolutionDimensionNumbers()
        dn.input_feature_dimension, dn.kernel_input_feature_dimension, dn.output_feature_dimension = 1, 1, 1
        dn.input_spatial_dimensions.append(2)
        dn.kernel_spatial_dimensions.append(2)
        dn.output_spatial_dimensions.append(2)
        lhs, rhs = _f32([1, 2, 3, 4]).reshape(1, 1, 4), np.ones((1, 1, 3), np.float32)
    c = XlaBuilder("conv")
    pads = xla_client.window_padding_type_to_pad_values(xla_client.PaddingType.SAME, [4], [3], [1])
    assert pads == [(1, 1)]
    ops.ConvGeneralDilated(ops.Constant(c, lhs), ops.Constant(c, rhs), [1], pads, [1], [1], dn)
    out = _run(backend, c)[0]
    np.testing.assert_array_equal(out.reshape(-1), [3, 6, 9, 7])   # 0+1+2, 1+2+3, 2+3+4, 3+4+0


@pytest.mark.parametrize("backend", BACKENDS)
def test_pad_with_appended_padding_config_and_result_accuracy(backend):
    c = XlaBuilder("pad")
    config = xla_client.PaddingConfig()
    dim = xla_client.PaddingConfigDimension()
    dim.edge_padding_low, dim.interior_padding = 1, 1
    config.dimensions.append(dim)
    padded = ops.Pad(ops.Constant(c, _f32([1, 2])), ops.Constant(c, np.float32(0)), config)
    accuracy = xla_client.ResultAccuracy()
    accuracy.mode = xla_client.ResultAccuracy_Mode.HIGHEST
    ops.Exp(padded, result_accuracy=accuracy)
    np.testing.assert_allclose(_run(backend, c)[0], np.exp(_f32([0, 1, 0, 2])), rtol=1e-6)   # [0, 1, 0, 2]


MATH_CASES = [   # independent values: Python's math module in double precision, compared at f32 precision
    ("Acos", [0.5, -1.0], [math.acos(0.5), math.pi]),
    ("Acosh", [1.0, 2.0], [0.0, math.acosh(2.0)]),
    ("Asin", [0.5, 1.0], [math.asin(0.5), math.pi / 2]),
    ("Asinh", [1.0, -2.0], [math.asinh(1.0), math.asinh(-2.0)]),
    ("Atan", [1.0, -1e30], [math.pi / 4, -math.pi / 2]),
    ("Atanh", [0.5, 0.0], [math.atanh(0.5), 0.0]),
    ("Sinh", [1.0, -0.5], [math.sinh(1.0), math.sinh(-0.5)]),
    ("Erfc", [0.0, 1.0], [1.0, math.erfc(1.0)]),
    ("Square", [3.0, -1.5], [9.0, 2.25]),
    ("Reciprocal", [4.0, -0.5], [0.25, -2.0]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, values, expected", MATH_CASES, ids=[c[0] for c in MATH_CASES])
def test_math_library_functions(backend, name, values, expected):
    c = XlaBuilder(name)
    getattr(ops, name)(ops.Constant(c, _f32(values)))
    np.testing.assert_allclose(_run(backend, c)[0], expected, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_conj_and_next_after(backend):
    c = XlaBuilder("conj")
    z = ops.Conj(ops.Constant(c, np.array([1 + 2j, -3j], np.complex64)))
    after = ops.NextAfter(ops.Constant(c, _f32([1.0, 0.0])), ops.Constant(c, _f32([2.0, -1.0])))
    out = _run(backend, c, root=ops.Tuple(c, [z, after]))
    np.testing.assert_array_equal(out[0], np.array([1 - 2j, 3j], np.complex64))
    # the next f32 after 1 towards 2 is 1 + 2**-23; after 0 towards -1 the smallest negative subnormal -2**-149
    # (computed on the bit patterns, so no flushing)
    np.testing.assert_array_equal(out[1], np.array([1 + 2.0 ** -23, -(2.0 ** -149)], np.float32))


# -- value types ------------------------------------------------------------------------------
def test_value_types_are_default_constructible_mutable_and_compare_by_value():
    dn = xla_client.DotDimensionNumbers()
    dn.lhs_contracting_dimensions.append(1)
    dn.rhs_contracting_dimensions.extend([0])
    assert dn == xla_client.make_dot_dimension_numbers((([1], [0]), ([], [])))
    assert dn != xla_client.DotDimensionNumbers()
    group = xla_client.ReplicaGroup()
    group.replica_ids.extend([0, 1])
    assert xla_client.make_replica_groups([[0, 1], [2, 3]]) == [group, xla_client.ReplicaGroup([2, 3])]
    assert xla_client.make_replica_groups(None) == []
    config = xla_client.make_padding_config([(1, 2, 0)])
    config.dimensions[0].interior_padding = 3   # make_* return mutable values, as xla_client's did
    assert str(config) == "1_2_3"
    accuracy = xla_client.ResultAccuracy()
    assert (accuracy.mode, accuracy.atol, accuracy.rtol, accuracy.ulps) == (xla_client.ResultAccuracy_Mode.DEFAULT,
                                                                            0.0, 0.0, 0)
    conv = xla_client.ConvolutionDimensionNumbers()
    assert conv.input_spatial_dimensions == [] and conv.input_batch_dimension == 0


def test_the_op_keeps_a_frozen_canonical_copy():
    c = XlaBuilder("frozen")
    x = ops.Constant(c, _f32([[1, 2]]))
    dn = xla_client.DotDimensionNumbers([1], [1])
    op = ops.DotGeneral(x, x, dn)
    kept = c.instruction(op).attrs["dimension_numbers"]
    assert kept == dn and kept is not dn and kept.lhs_contracting_dimensions == (1,)
    with pytest.raises(AttributeError):
        kept.lhs_batch_dimensions = [0]
    copy = kept.copy()
    copy.lhs_batch_dimensions.append(0)
    assert copy != kept


@pytest.mark.parametrize("field, fill, message", [
    ("dot", lambda dn: dn.lhs_contracting_dimensions.append("1"), "DotDimensionNumbers.lhs_contracting_dimensions"),
    ("precision", lambda pc: pc.operand_precision.append("FASTEST"), "PrecisionConfig.operand_precision"),
    ("accuracy", lambda ra: setattr(ra, "ulps", 1.5), "ResultAccuracy"),
])
def test_a_malformed_value_is_an_op_error_naming_the_field(field, fill, message):
    c = XlaBuilder("bad")
    x = ops.Constant(c, _f32([[1, 2], [3, 4]]))
    value = {"dot": xla_client.DotDimensionNumbers([1], [0]), "precision": xla_client.PrecisionConfig(),
             "accuracy": xla_client.ResultAccuracy(xla_client.ResultAccuracyMode.TOLERANCE)}[field]
    fill(value)
    build = {"dot": lambda: ops.DotGeneral(x, x, value), "precision": lambda: ops.Dot(x, x, value),
             "accuracy": lambda: ops.Exp(x, value)}[field]
    with pytest.raises(OpError) as e:
        build()
    assert message in str(e.value)


def test_helpers_reject_malformed_input_with_op_errors():
    with pytest.raises(OpError):
        xla_client.make_replica_groups([[0, 1], [1]])   # replica 1 in two groups
    with pytest.raises(OpError):
        xla_client.make_dot_dimension_numbers(([1], [0]))
    with pytest.raises(OpError):
        xla_client.window_padding_type_to_pad_values("FULL", [3], [2], [1])
    with pytest.raises(OpError):
        xla_client.window_padding_type_to_pad_values(xla_client.PaddingType.SAME, [3, 3], [2], [1])


# -- enums and helpers ------------------------------------------------------------------------
@pytest.mark.parametrize("lhs, rhs, strides, expected", [
    ([5, 6], [2, 3], [2, 1], [(0, 1), (1, 1)]),   # ceil(5/2)=3 outputs: 2*2+2-5 = 1; 5+3-6 = 2
    ([7], [4], [1], [(1, 2)]),                   # 6+4-7 = 3: the extra one high
    ([10], [5], [3], [(2, 2)]),                  # ceil(10/3)=4: 3*3+5-10 = 4
    ([4], [1], [2], [(0, 0)]),                   # 1*2+1-4 < 0: none
])
def test_same_padding_splits_with_the_extra_on_the_high_side(lhs, rhs, strides, expected):
    assert xla_client.window_padding_type_to_pad_values(xla_client.PaddingType.SAME, lhs, rhs, strides) == expected
    assert xla_client.window_padding_type_to_pad_values("valid", lhs, rhs, strides) == [(0, 0)] * len(lhs)


def test_enum_values_are_xla_s():
    assert [m.value for m in xla_client.FftType] == [0, 1, 2, 3]
    assert xla_client.TriangularSolveOptions_Transpose.ADJOINT.value == 3
    assert xla_client.RandomAlgorithm.RNG_PHILOX.value == 2
    assert xla_client.CustomCallSchedule.SCHEDULE_EARLIEST == 2
    assert xla_client.CustomCallApiVersion.API_VERSION_TYPED_FFI == 4
    assert xla_client.PrecisionConfig.Precision is xla_client.PrecisionConfig_Precision
    assert xla_client.shape_from_pyval(np.zeros((2, 3), np.int32)) == Shape.array_shape(S32, (2, 3))
    assert xla_client.dtype_to_etype(np.float32) == F32


def test_our_errors_are_xla_runtime_errors():
    c = XlaBuilder("errors")
    with pytest.raises(XlaRuntimeError):
        ops.Add(ops.Constant(c, _f32([1, 2])), ops.Constant(c, _f32([1, 2, 3])))
    assert issubclass(OpError, ValueError) and issubclass(UnsupportedError, XlaRuntimeError)
    assert issubclass(SpecError, XlaRuntimeError)


# -- builder and computation methods ----------------------------------------------------------
def test_metadata_is_kept_on_instructions_and_shown_in_the_text():
    c = XlaBuilder("meta")
    metadata = xla_client.CurrentSourceInfoMetadata(op_type="add", op_name="jit(f)/add")
    line = inspect.currentframe().f_lineno - 1
    c.set_op_metadata(metadata)
    x = ops.Parameter(c, 0, Shape.array_shape(F32, (2,)))
    y = ops.Add(x, x)
    c.clear_op_metadata()
    ops.Neg(y)
    text = c.build().as_hlo_text()
    shown = f'metadata={{op_type="add" op_name="jit(f)/add" source_file="test_xla_client_surface.py" source_line={line}}}'
    lines = text.splitlines()
    assert shown in next(t for t in lines if " add(" in t)
    assert "metadata" not in next(t for t in lines if " neg(" in t)
    with pytest.raises(OpError):
        c.set_op_metadata("not metadata")


def test_builder_and_computation_methods():
    c = XlaBuilder("methods")
    x = ops.Parameter(c, 0, Shape.array_shape(F32, (2,)), "x")
    k = ops.Add(ops.Constant(c, np.float32(1)), ops.Iota(c, F32, 2))
    root = ops.Mul(x, k)
    assert c.is_constant(k) and not c.is_constant(root)
    assert c.get_shape(root) == Shape.array_shape(F32, (2,))
    assert c.get_program_shape(root).result_shape() == Shape.array_shape(F32, (2,))
    comp = c.build(root)
    assert comp.name() == "methods" and comp.name == "methods"
    assert comp.program_shape().parameter_shapes() == [Shape.array_shape(F32, (2,))]
    assert comp.as_hlo_text().startswith("HloModule methods")


def test_a_call_fitting_no_form_reports_the_closest_form():
    c = XlaBuilder("errors")
    x = ops.Constant(c, _f32([1, 2]))
    with pytest.raises(OpError) as e:
        ops.Iota(c, S32, -1)
    assert e.value.arg == "size"
    with pytest.raises(OpError) as e:
        ops.Reduce(c, [x], [ops.Constant(c, np.float32(0))], binary_computation(ops.Add))
    assert "dimensions_to_reduce" in str(e.value)
    other = XlaBuilder("other")
    with pytest.raises(OpError) as e:
        ops.Reduce(other, [x], [ops.Constant(c, np.float32(0))], binary_computation(ops.Add), [0])
    assert "different builders" in str(e.value)


# -- the porting table ------------------------------------------------------------------------
#: What is still missing. It may only shrink: remove names as the open work lands them.
STILL_MISSING = {
    "AllGather", "AllReduce", "AllToAll", "ApproxTopK", "ApproxTopKFallback", "ApproxTopKReductionOutputSize",
    "CrossReplicaSum", "ProductOfElementaryHouseholderReflectors",
    "QrDecomposition", "ReduceScatter", "ReplicaId", "XlaBuilder.clear_sharding",
    "XlaBuilder.set_sharding",
}


def test_the_readme_table_is_the_generated_one():
    readme = Path(xla_client_surface.README).read_text()
    assert xla_client_surface.readme_table(readme) == xla_client_surface.markdown(), \
        "README's xla_client table is stale: run python -m docgen.porting_table --write-readme"


def test_every_name_is_present_or_missing_with_its_open_work():
    rows = xla_client_surface.rows()
    missing = {r.name for r in rows if not r.present}
    assert missing <= STILL_MISSING, f"newly missing: {sorted(missing - STILL_MISSING)}"
    for r in rows:
        assert r.present or r.status.startswith("missing: issue 1"), (r.name, r.status)


# -- the spec schema's xla_client forms --------------------------------------------------------
BROADCAST = (Path(loader.OPS_DIR) / "broadcast.yaml").read_text().split("\ncall_forms:")[0]


@pytest.mark.parametrize("forms, message", [
    ("  - args: {operand: {}, sizes: {to: nope}}", "'nope' is not an argument of the spec"),
    ("  - args: {operand: {single: true}, sizes: {to: broadcast_sizes}}", "'single' wraps one XlaOp"),
    ("  - args: {operand: {}, sizes: {to: broadcast_sizes}, again: {to: broadcast_sizes}}", "given by two"),
    ("  - args: {operand: {}}", "required argument 'broadcast_sizes'"),
    ("  - {adapter: nope, args: {operand: {}, broadcast_sizes: {}}}", "no adapter 'nope'"),
    ("  - {name: Broadcast, args: {operand: {}, broadcast_sizes: {}}}", "another CamelCase function name"),
    ("  - args: {operand: {}, sizes: {to: broadcast_sizes, bogus: 1}}", "unknown key 'bogus'"),
    ("  - args: {operand: {}, sizes: {type: int_list}}", "only an input of the form's adapter"),
    ("  - args: {b: {builder: true, to: operand}, operand: {}, broadcast_sizes: {}}", "extra XlaBuilder"),
    ("  - args: {operand: {}, sizes: {to: broadcast_sizes, default: [x]}}", "not a valid int_list"),
])
def test_the_loader_checks_xla_client_forms_strictly(tmp_path, forms, message):
    path = tmp_path / "broadcast.yaml"
    path.write_text(BROADCAST + "\ncall_forms:\n" + forms + "\n")
    with pytest.raises(SpecError, match="call_forms") as e:
        load_checked(path)
    assert message in str(e.value)


def test_form_names_are_unique_across_specs(tmp_path):
    form = "\ncall_forms:\n  - {name: Widen, args: {operand: {}, broadcast_sizes: {}}}\n"
    first = tmp_path / "broadcast.yaml"
    first.write_text(BROADCAST + form)
    second = tmp_path / "rev.yaml"
    second.write_text((Path(loader.OPS_DIR) / "rev.yaml").read_text().split("\ncall_forms:")[0]
                      + form.replace("broadcast_sizes", "dimensions"))
    with pytest.raises(SpecError, match="'Widen'"):
        loader._load_paths([first, second])
