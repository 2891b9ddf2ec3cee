"""Code written for the former ``xla_client``, run here by changing the import, in xla_client's own style (its
``xla_client_test.py``: builder-first calls, ``ops.Parameter(c, 0, shape)``, ``c.build()``, the client's
``compile`` and ``execute_with_python_values``). Every name of the porting table (``docgen.porting_table``) is
used here (the last test checks it from this file's source) with expected values worked out by hand in the
comments, or, for special functions, from mpmath (the digits quoted); each runs on a client over the reference
and over the jax backend."""

import ast
import math
import types
from pathlib import Path

import numpy as np
import pytest

import backend as xla_client
from docgen import porting_table

ops = xla_client.ops
F32, S32, U32 = xla_client.PrimitiveType.F32, xla_client.PrimitiveType.S32, xla_client.PrimitiveType.U32


@pytest.fixture(params=["reference", "jax"], scope="module")
def client(request):
    return xla_client.make_cpu_client(request.param, device_count=2 if request.param == "reference" else None)


def _execute(client, c, arguments=(), root=None):
    compiled = client.compile(c.build(root))
    return xla_client.execute_with_python_values(compiled, list(arguments), backend=client)


def _compare_close(client, c, expected, arguments=(), rtol=1e-6, atol=0.0, root=None):
    results = _execute(client, c, arguments, root)
    assert len(results) == len(expected)
    for result, want in zip(results, expected):
        np.testing.assert_allclose(result, want, rtol=rtol, atol=atol)


def _compare_exact(client, c, expected, arguments=(), root=None):
    results = _execute(client, c, arguments, root)
    assert len(results) == len(expected)
    for result, want in zip(results, expected):
        want = np.asarray(want)
        assert result.shape == want.shape
        np.testing.assert_array_equal(result, want)


def _f32(values):
    return np.array(values, np.float32)


def _scalar_computation(name, op, etype=F32):
    c = xla_client.XlaBuilder(name)
    shape = xla_client.Shape.array_shape(etype, ())
    op(ops.Parameter(c, 0, shape), ops.Parameter(c, 1, shape))
    return c.build()


# -- element-wise --------------------------------------------------------------------------------------------------
UNARY_F32 = [  # (op, x, expected): exact values, or math/mpmath's digits at f32 precision
    (ops.Abs, [-2.5, 3], [2.5, 3]),
    (ops.Acos, [1, 0], [0, math.pi / 2]),
    (ops.Acosh, [1, 2], [0, 1.3169578969248167]),
    (ops.Asin, [0, 1], [0, math.pi / 2]),
    (ops.Asinh, [0, 1], [0, 0.881373587019543]),
    (ops.Atan, [0, 1], [0, math.pi / 4]),
    (ops.Atanh, [0, 0.5], [0, 0.5493061443340548]),
    (ops.BesselI0e, [0, 1], [1, 0.46575960759364043]),   # I0(1) e^-1
    (ops.BesselI1e, [0, 1], [0, 0.2079104153497085]),    # I1(1) e^-1
    (ops.Cbrt, [8, -27], [2, -3]),
    (ops.Ceil, [1.5, -1.5], [2, -1]),
    (ops.Cos, [0, math.pi], [1, -1]),
    (ops.Cosh, [0, 1], [1, 1.5430806348152437]),
    (ops.Digamma, [1, 2], [-0.5772156649015329, 1 - 0.5772156649015329]),   # -gamma, 1 - gamma
    (ops.Erf, [0, 1], [0, 0.8427007929497149]),
    (ops.Erfc, [0, 1], [1, 0.1572992070502851]),
    (ops.ErfInv, [0, 0.5], [0, 0.4769362762044699]),
    (ops.Exp, [0, 1], [1, math.e]),
    (ops.Expm1, [0, 1e-3], [0, 0.0010005001667083417]),
    (ops.Floor, [1.5, -1.5], [1, -2]),
    (ops.Lgamma, [1, 3], [0, math.log(2)]),              # log Gamma(3) = log 2!
    (ops.Log, [1, math.e], [0, 1]),
    (ops.Log1p, [0, 1e-3], [0, 0.0009995003330835332]),
    (ops.Logistic, [0, 1], [0.5, 0.7310585786300049]),  # 1 / (1 + e^-1)
    (ops.Neg, [1, -0.5], [-1, 0.5]),
    (ops.Reciprocal, [4, -0.5], [0.25, -2]),
    (ops.Round, [2.5, -0.5], [3, -1]),                   # halves away from zero
    (ops.Rsqrt, [4, 0.25], [0.5, 2]),
    (ops.Sign, [-3, 0], [-1, 0]),
    (ops.Sin, [0, math.pi / 2], [0, 1]),
    (ops.Sinh, [0, 1], [0, 1.1752011936438014]),
    (ops.Sqrt, [9, 0.25], [3, 0.5]),
    (ops.Square, [3, -1.5], [9, 2.25]),
    (ops.Tan, [0, math.pi / 4], [0, 1]),
    (ops.Tanh, [0, 1], [0, 0.7615941559557649]),
]


@pytest.mark.parametrize("op, x, expected", UNARY_F32, ids=[case[0].__name__ for case in UNARY_F32])
def test_unary_f32(client, op, x, expected):
    c = xla_client.XlaBuilder(op.__name__)
    op(ops.Parameter(c, 0, xla_client.shape_from_pyval(_f32(x))))
    _compare_close(client, c, [_f32(expected)], [_f32(x)], rtol=3e-6, atol=1e-6)


def test_unary_results_of_other_types(client):
    c = xla_client.XlaBuilder("other_unary")
    x = ops.Constant(c, np.array([0b0101, 1, -1], np.int32))
    z = ops.Constant(c, np.array([1 + 2j, -3j], np.complex64))
    ops.Tuple(c, [ops.Not(x), ops.PopulationCount(x), ops.Clz(x), ops.IsFinite(ops.Constant(c, _f32([1, np.inf]))),
                  ops.Real(z), ops.Imag(z), ops.Conj(z)])
    _compare_exact(client, c, [
        np.array([-6, -2, 0], np.int32),    # ~x = -x - 1
        np.array([2, 1, 32], np.int32),     # set bits of 0b0101, 1, 0xFFFFFFFF
        np.array([29, 31, 0], np.int32),    # leading zeros of 0b0101 in 32 bits, of 1, of a negative
        np.array([True, False]),
        _f32([1, 0]), _f32([2, -3]), np.array([1 - 2j, 3j], np.complex64)])


BINARY = [  # (op, lhs, rhs, expected)
    (ops.Add, [1, 2], [10, 20], [11, 22]),
    (ops.Sub, [1, 2], [10, 20], [-9, -18]),
    (ops.Mul, [3, -2], [4, 5], [12, -10]),
    (ops.Div, [1, -7], [4, 2], [0.25, -3.5]),
    (ops.Rem, [7, -7], [3, 3], [1, -1]),        # the sign of the dividend
    (ops.Max, [1, 5], [3, 2], [3, 5]),
    (ops.Min, [1, 5], [3, 2], [1, 2]),
    (ops.Pow, [2, 9], [10, 0.5], [1024, 3]),
    (ops.Atan2, [1, 1], [1, -1], [math.pi / 4, 3 * math.pi / 4]),
    (ops.NextAfter, [1, 0], [2, -1], [1 + 2.0 ** -23, -(2.0 ** -149)]),
    (ops.Igamma, [1, 2], [1, 1], [1 - math.exp(-1), 0.2642411176571154]),      # P(1, 1) = 1 - 1/e; P(2, 1) = 1 - 2/e
    (ops.Igammac, [1, 2], [1, 1], [math.exp(-1), 0.7357588823428847]),         # 1/e; 2/e
    (ops.IgammaGradA, [2], [1], [-0.2761960457028348]),                        # dP(a, 1)/da at a = 2 (mpmath)
    (ops.RandomGammaGrad, [2], [1], [0.7507786921262598]),                     # -(dP/da) / (dP/dx) at (2, 1) (mpmath)
    (ops.Zeta, [2, 3], [1, 2], [math.pi ** 2 / 6, 0.20205690315959429]),      # zeta(2) ; zeta(3) - 1
]


@pytest.mark.parametrize("op, lhs, rhs, expected", BINARY, ids=[case[0].__name__ for case in BINARY])
def test_binary_f32(client, op, lhs, rhs, expected):
    c = xla_client.XlaBuilder(op.__name__)
    op(ops.Constant(c, _f32(lhs)), ops.Constant(c, _f32(rhs)))
    _compare_close(client, c, [_f32(expected)], rtol=2e-6, atol=1e-45)


def test_comparisons_logic_shifts_and_complex(client):
    c = xla_client.XlaBuilder("compare")
    a, b = ops.Constant(c, np.array([1, 2, 3], np.int32)), ops.Constant(c, np.array([2, 2, 2], np.int32))
    n = ops.Constant(c, np.array([-8, 8, 1], np.int32))
    k = ops.Constant(c, np.array([1, 2, 3], np.int32))
    ops.Tuple(c, [ops.Eq(a, b), ops.Ne(a, b), ops.Ge(a, b), ops.Gt(a, b), ops.Lt(a, b), ops.Le(a, b),
                  ops.And(a, b), ops.Or(a, b), ops.Xor(a, b), ops.ShiftLeft(n, k), ops.ShiftRightArithmetic(n, k),
                  ops.ShiftRightLogical(n, k),
                  ops.Complex(ops.Constant(c, _f32([1, 0])), ops.Constant(c, _f32([2, -1])))])
    _compare_exact(client, c, [
        [False, True, False], [True, False, True], [False, True, True], [False, False, True],
        [True, False, False], [True, True, False],
        np.array([0, 2, 2], np.int32), np.array([3, 2, 3], np.int32), np.array([3, 0, 1], np.int32),
        np.array([-16, 32, 8], np.int32),                 # -8 << 1, 8 << 2, 1 << 3
        np.array([-4, 2, 0], np.int32),                   # sign-filling
        np.array([0x7FFFFFFC, 2, 0], np.int32),           # 0xFFFFFFF8 >> 1 with zeros
        np.array([1 + 2j, -1j], np.complex64)])


def test_binary_broadcast_dimensions_and_regularized_incomplete_beta(client):
    c = xla_client.XlaBuilder("bcast")
    x = ops.Parameter(c, 0, xla_client.Shape.array_shape(F32, (2, 3)))
    v = ops.Parameter(c, 1, xla_client.Shape.array_shape(F32, (3,)))
    third = ops.Constant(c, _f32([0.3, 0.5]))
    ops.Tuple(c, [ops.Add(x, v, broadcast_dimensions=(1,)),
                  ops.RegularizedIncompleteBeta(ops.Constant(c, _f32([1, 2])), ops.Constant(c, _f32([1, 3])), third)])
    # I_0.3(1, 1) = 0.3; I_0.5(2, 3) = 1 - (1 + 2 * 0.5 + 3 * 0.25) / 16 ... = 11/16 = 0.6875
    _compare_close(client, c, [_f32([[1, 2, 3], [1, 2, 3]]), _f32([0.3, 0.6875])],
                   [np.zeros((2, 3), np.float32), _f32([1, 2, 3])], rtol=1e-5)


# -- creation and data movement ------------------------------------------------------------------------------------
def test_constants_iota_parameters_and_tuples(client):
    c = xla_client.XlaBuilder("creation")
    p = ops.Parameter(c, 0, xla_client.Shape.array_shape(S32, (2,)), "p")
    t = ops.Tuple(c, [ops.Constant(c, np.int32(7)), ops.ConstantLiteral(c, np.array([1, 2], np.int32)), p,
                      ops.Iota(c, S32, 3), ops.Iota(c, xla_client.Shape.array_shape(S32, (2, 2)), 0)])
    ops.Tuple(c, [ops.GetTupleElement(t, 0), ops.Add(ops.GetTupleElement(t, 1), ops.GetTupleElement(t, 2)),
                  ops.GetTupleElement(t, 3), ops.GetTupleElement(t, 4)])
    _compare_exact(client, c, [np.int32(7), np.array([11, 22], np.int32), np.array([0, 1, 2], np.int32),
                               np.array([[0, 0], [1, 1]], np.int32)], [np.array([10, 20], np.int32)])


def test_shape_changes(client):
    c = xla_client.XlaBuilder("shapes")
    x = ops.Constant(c, np.arange(6, dtype=np.int32).reshape(2, 3))   # [[0, 1, 2], [3, 4, 5]]
    ops.Tuple(c, [ops.Reshape(x, [3, 2]), ops.Reshape(x, [1, 0], [6]), ops.Collapse(x, [0, 1]),
                  ops.Transpose(x, [1, 0]), ops.Rev(x, [1]), ops.Broadcast(ops.Constant(c, np.int32(5)), [2]),
                  ops.BroadcastInDim(ops.Constant(c, np.array([1, 2], np.int32)), [2, 2], [0])])
    _compare_exact(client, c, [
        np.array([[0, 1], [2, 3], [4, 5]]), np.array([0, 3, 1, 4, 2, 5]),   # the older form: transpose, then flatten
        np.array([0, 1, 2, 3, 4, 5]), np.array([[0, 3], [1, 4], [2, 5]]), np.array([[2, 1, 0], [5, 4, 3]]),
        np.array([5, 5]), np.array([[1, 1], [2, 2]])])


def test_slicing_padding_and_selection(client):
    c = xla_client.XlaBuilder("slices")
    x = ops.Constant(c, np.arange(6, dtype=np.int32))   # [0 .. 5]
    one = ops.Constant(c, np.int32(1))
    ops.Tuple(c, [ops.Slice(x, [1], [6], [2]), ops.SliceInDim(x, 0, 4, 3, 0),
                  ops.DynamicSlice(x, [ops.Constant(c, np.int32(4))], [3]),        # start clamped to 3
                  ops.DynamicUpdateSlice(x, ops.Constant(c, np.array([9, 9], np.int32)), [one]),
                  ops.Pad(ops.Constant(c, np.array([1, 2], np.int32)), ops.Constant(c, np.int32(0)),
                          xla_client.make_padding_config([(1, 0, 1)])),
                  ops.ConcatInDim(c, [x, ops.Constant(c, np.array([6], np.int32))], 0),
                  ops.Select(ops.Constant(c, np.array([True, False])), ops.Constant(c, np.array([1, 2], np.int32)),
                             ops.Constant(c, np.array([3, 4], np.int32))),
                  ops.Clamp(one, x, ops.Constant(c, np.int32(3)))])
    _compare_exact(client, c, [[1, 3, 5], [0, 3], [3, 4, 5], [0, 9, 9, 3, 4, 5], [0, 1, 0, 2], [0, 1, 2, 3, 4, 5, 6],
                               [1, 4], [1, 1, 2, 3, 3, 3]])


def test_conversions(client):
    c = xla_client.XlaBuilder("convert")
    x = ops.Constant(c, _f32([1.5, -2.7]))
    ops.Tuple(c, [ops.ConvertElementType(x, S32), ops.BitcastConvertType(ops.Constant(c, _f32([1.0])), S32),
                  ops.ReducePrecision(ops.Constant(c, _f32([1.0 + 2.0 ** -10])), 8, 7)])
    # toward zero; 1.0f is 0x3F800000; 1 + 2^-10 rounds to 1 with 7 mantissa bits (bf16's)
    _compare_exact(client, c, [np.array([1, -2], np.int32), np.array([0x3F800000], np.int32), _f32([1.0])])


# -- reductions, windows, sorting --------------------------------------------------------------------------------
def test_reduce_and_map(client):
    c = xla_client.XlaBuilder("reduce")
    x = ops.Constant(c, _f32([[1, 2, 3], [4, 5, 6]]))
    add = _scalar_computation("add", ops.Add)
    ops.Tuple(c, [ops.Reduce(c, [x], [ops.Constant(c, np.float32(0))], add, [1]),
                  ops.Map(c, [x, x], _scalar_computation("mul", ops.Mul), [0, 1])])
    _compare_exact(client, c, [_f32([6, 15]), _f32([[1, 4, 9], [16, 25, 36]])])


def test_reduce_window_and_select_and_scatter_with_empty_dilations(client):
    c = xla_client.XlaBuilder("windows")
    x = ops.Constant(c, _f32([1, 2, 3, 4, 5]))
    zero = ops.Constant(c, np.float32(0))
    add, ge = _scalar_computation("add", ops.Add), _scalar_computation("ge", ops.Ge)
    pads = xla_client.window_padding_type_to_pad_values(xla_client.PaddingType.SAME, [5], [2], [2])   # [(0, 1)]
    single = ops.ReduceWindowWithGeneralPadding(x, zero, add, [2], [2], [], [], pads)   # empty: dilation 1
    variadic = ops.ReduceWindowWithGeneralPadding([x], [zero], add, [3], [1], [1], [2], [(0, 0)])
    scattered = ops.SelectAndScatterWithGeneralPadding(ops.Constant(c, _f32([1, 5, 2, 3])), ge, [2], [2], [(0, 0)],
                                                       ops.Constant(c, _f32([10, 20])), zero, add)
    ops.Tuple(c, [single, variadic, scattered])
    _compare_exact(client, c, [_f32([3, 7, 5]),   # [1,2], [3,4], [5, pad]
                               _f32([9]),         # window 3 dilated by 2 spans 5: 1 + 3 + 5
                               _f32([0, 10, 0, 20])])   # each source value to its window's max


def test_sort_top_k_and_approx_top_k(client):
    c = xla_client.XlaBuilder("sort")
    x = ops.Constant(c, _f32([3, 1, 2]))
    keys = ops.Sort(c, [x])                                        # the default comparator: ascending
    gt = xla_client.XlaBuilder("gt")
    scalar = xla_client.Shape.array_shape(F32, ())
    ops.Gt(ops.Parameter(gt, 0, scalar), ops.Parameter(gt, 1, scalar))
    descending = ops.Sort(c, [x], gt.build(), 0, True)
    top = ops.TopK(x, 2)
    greater = xla_client.XlaBuilder("greater")
    index = xla_client.Shape.array_shape(S32, ())
    p = [ops.Parameter(greater, k, s) for k, s in enumerate((scalar, scalar, index, index))]
    ops.Gt(p[0], p[1])
    args = (c, [x, ops.Iota(c, S32, 3)], [ops.Constant(c, np.float32(-np.inf)), ops.Constant(c, np.int32(-1))], 1, 0,
            greater.build())
    ops.Tuple(c, [keys, descending, ops.GetTupleElement(top, 0), ops.GetTupleElement(top, 1),
                  ops.GetTupleElement(ops.ApproxTopK(*args), 0), ops.GetTupleElement(ops.ApproxTopKFallback(*args), 1)])
    _compare_exact(client, c, [_f32([1, 2, 3]), _f32([3, 2, 1]), _f32([3, 2]), np.array([0, 2], np.int32), _f32([3]),
                               np.array([0], np.int32)])
    # aggregate_to_topk: the reduction keeps top_k elements, with no log2 reduction (XLA gives -1)
    assert ops.ApproxTopKReductionOutputSize(1024, 1, 10, 0.95, True) == (10, -1)


# -- dots, convolutions, gathers -------------------------------------------------------------------------------------
def test_dot_dot_general_and_conv_general_dilated(client):
    c = xla_client.XlaBuilder("dots")
    a = ops.Constant(c, _f32([[1, 2], [3, 4]]))
    dn = xla_client.make_dot_dimension_numbers((([1], [1]), ([], [])))   # a @ a.T
    conv_dn = xla_client.make_convolution_dimension_numbers(None, 1)  # [batch, feature, spatial]
    lhs = ops.Constant(c, _f32([1, 2, 3, 4]).reshape(1, 1, 4))
    rhs = ops.Constant(c, np.ones((1, 1, 2), np.float32))
    ops.Tuple(c, [ops.Dot(a, a), ops.DotGeneral(a, a, dn),
                  ops.ConvGeneralDilated(lhs, rhs, [1], [(0, 0)], [], [], conv_dn),    # empty: no dilation
                  ops.ConvGeneralDilated(lhs, rhs, [], [], [2], [2], conv_dn)])       # empty: stride 1, no padding
    _compare_exact(client, c, [_f32([[7, 10], [15, 22]]), _f32([[5, 11], [11, 25]]),
                               _f32([[[3, 5, 7]]]),           # 1+2, 2+3, 3+4
                               _f32([[[1 + 2, 0, 2 + 3, 0, 3 + 4]]])])   # lhs dilated [1,0,2,0,3,0,4], taps 2 apart


def test_gather_and_both_scatter_forms(client):
    c = xla_client.XlaBuilder("gather")
    x = ops.Constant(c, _f32([1, 2, 3, 4]))
    gdn = xla_client.GatherDimensionNumbers()
    gdn.collapsed_slice_dims.append(0)
    gdn.start_index_map.append(0)
    gdn.index_vector_dim = 1
    sdn = xla_client.ScatterDimensionNumbers()
    sdn.inserted_window_dims.append(0)
    sdn.scatter_dims_to_operand_dims.append(0)
    sdn.index_vector_dim = 1
    indices = ops.Constant(c, np.array([[3], [0]], np.int32))
    updates = ops.Constant(c, _f32([10, 20]))
    add = _scalar_computation("add", ops.Add)
    both = ops.Scatter([x, x], indices, [updates, updates], _pair_add(), sdn)
    ops.Tuple(c, [ops.Gather(x, indices, gdn, [1]), ops.Scatter(x, indices, updates, add, sdn),
                  ops.GetTupleElement(both, 1)])
    _compare_exact(client, c, [_f32([4, 1]), _f32([21, 2, 3, 14]), _f32([21, 2, 3, 14])])


def _pair_add():
    c = xla_client.XlaBuilder("pair_add")
    scalar = xla_client.Shape.array_shape(F32, ())
    a, b, x, y = (ops.Parameter(c, k, scalar) for k in range(4))
    ops.Tuple(c, [ops.Add(a, x), ops.Add(b, y)])
    return c.build()


# -- control flow --------------------------------------------------------------------------------------------------
def test_call_conditional_and_while(client):
    c = xla_client.XlaBuilder("control")
    scalar = xla_client.Shape.array_shape(S32, ())
    double = xla_client.XlaBuilder("double")
    ops.Mul(ops.Parameter(double, 0, scalar), ops.Constant(double, np.int32(2)))
    negate = xla_client.XlaBuilder("negate")
    ops.Neg(ops.Parameter(negate, 0, scalar))
    below = xla_client.XlaBuilder("below_100")
    ops.Lt(ops.Parameter(below, 0, scalar), ops.Constant(below, np.int32(100)))
    five = ops.Constant(c, np.int32(5))
    ops.Tuple(c, [ops.Call(c, double.build(), [five]),
                  ops.Conditional(ops.Constant(c, np.int32(1)), [double.build(), negate.build()], [five, five]),
                  ops.Conditional(ops.Constant(c, True), five, double.build(), five, negate.build()),
                  ops.While(below.build(), double.build(), ops.Constant(c, np.int32(3))),
                  ops.OptimizationBarrier(five)])
    _compare_exact(client, c, [np.int32(10), np.int32(-5), np.int32(10), np.int32(192), np.int32(5)])   # 3*2^6


# -- linear algebra and FFT ----------------------------------------------------------------------------------------
def test_decompositions_return_xla_client_tuples(client):
    c = xla_client.XlaBuilder("linalg")
    a = ops.Constant(c, np.array([[4, 2], [2, 3]], np.float64))   # symmetric positive definite
    v, w = ops.Eigh(a)
    q, r = ops.QR(a, True)
    u, d, vt = ops.SVD(ops.Constant(c, np.diag([3.0, -2.0])))
    lu, pivots, permutation = ops.LU(ops.Constant(c, np.array([[1.0, 2], [3, 4]])))
    packed, taus = ops.QrDecomposition(a)
    ops.Tuple(c, [ops.Cholesky(a), w, ops.Dot(q, r), d, lu, pivots, permutation,
                  ops.Dot(ops.ProductOfElementaryHouseholderReflectors(packed, taus), ops.Mul(packed, ops.Constant(
                      c, np.array([[1.0, 1], [0, 1]])))),
                  ops.TriangularSolve(ops.Constant(c, np.array([[2.0, 0], [1, 1]])), ops.Constant(c, np.array([[2.0],
                                      [3]])), True, True, False, ops.TriangularSolveOptions_Transpose.NO_TRANSPOSE),
                  ops.TriangularSolve(ops.Constant(c, np.array([[2.0, 0], [1, 1]])), ops.Constant(c, np.array([[2.0],
                                      [3]])), True, True, False, ops.TriangularSolveOptions_Transpose.TRANSPOSE)])
    for op in (v, u, vt):
        assert op.shape().dimensions() == (2, 2)
    results = _execute(client, c)
    np.testing.assert_allclose(results[0], [[2, 0], [1, math.sqrt(2)]], atol=1e-12)   # L: 2*2 = 4, 1 + l^2 = 3
    np.testing.assert_allclose(results[1], [(7 - math.sqrt(17)) / 2, (7 + math.sqrt(17)) / 2], atol=1e-12)
    np.testing.assert_allclose(results[2], [[4, 2], [2, 3]], atol=1e-12)                # Q R = a
    np.testing.assert_allclose(results[3], [3, 2], atol=1e-12)                           # |singular values|, descending
    np.testing.assert_allclose(results[4], [[3, 4], [1 / 3, 2 - 4 / 3]], atol=1e-12)     # pivot row 1 first
    np.testing.assert_array_equal(results[5], [1, 1])
    np.testing.assert_array_equal(results[6], [1, 0])
    np.testing.assert_allclose(results[7], [[4, 2], [2, 3]], atol=1e-12)                # Q R from the packed form
    np.testing.assert_allclose(results[8], [[1], [2]], atol=1e-12)    # L x = b: x0 = 2/2, x1 = 3 - 1
    np.testing.assert_allclose(results[9], [[-0.5], [3]], atol=1e-12)  # L^T x = b: x1 = 3, x0 = (2 - 3) / 2


def test_fft_with_xla_client_fft_type(client):
    c = xla_client.XlaBuilder("fft")
    ops.Fft(ops.Constant(c, np.array([1, 0, 0, 0], np.complex64)), xla_client.FftType.FFT, [4])
    _compare_close(client, c, [np.ones(4, np.complex64)])   # the FFT of an impulse is flat


# -- dynamic shapes ------------------------------------------------------------------------------------------------
def test_dynamic_dimension_ops(client):
    c = xla_client.XlaBuilder("dynamic")
    x = ops.Constant(c, np.arange(6, dtype=np.float32))
    n = ops.Constant(c, np.int32(4))
    d = ops.SetDimensionSize(x, n, 0)
    reshaped = ops.DynamicReshape(d, [ops.Constant(c, np.int32(2)), ops.Constant(c, np.int32(2))], [3, 2],
                                  [True, False])
    ops.Tuple(c, [ops.GetDimensionSize(d, 0), ops.Reduce(c, [d], [ops.Constant(c, np.float32(0))],
                                                         _scalar_computation("add", ops.Add), [0]),
                  ops.GetDimensionSize(reshaped, 0), ops.RemoveDynamicDimension(d, 0)])
    if client.backend.name == "jax":  # jax.lax arrays have static sizes: compile says so
        with pytest.raises(xla_client.UnsupportedError, match="bounded-dynamic dimension"):
            client.compile(c.build())
        return
    results = _execute(client, c)
    assert results[0] == 4 and results[1] == 0 + 1 + 2 + 3 and results[2] == 2   # the first 4 elements count
    assert results[3].shape == (6,)


# -- tokens, host transfers, random numbers, custom calls ---------------------------------------------------------
def test_infeed_outfeed_and_host_transfers_through_the_device(client):
    c = xla_client.XlaBuilder("feeds")
    shape = xla_client.Shape.array_shape(F32, (2,))
    token = ops.AfterAll(c, [ops.CreateToken(c)])
    data = ops.InfeedWithToken(token, shape)
    value, token = ops.GetTupleElement(data, 0), ops.GetTupleElement(data, 1)
    token = ops.OutfeedWithToken(ops.Mul(value, value), token, shape)
    received = ops.RecvFromHost(token, shape, types.SimpleNamespace(handle=2, type="HOST_TO_DEVICE"))
    token = ops.SendToHost(ops.Neg(ops.GetTupleElement(received, 0)), ops.GetTupleElement(received, 1), shape, 3)
    executable = client.compile(c.build(token))
    device = executable.local_devices()[0]
    device.transfer_to_infeed(_f32([1.5, -2]))
    device.transfer_to_infeed(_f32([4, 5]))
    executable.execute([])
    np.testing.assert_array_equal(device.transfer_from_outfeed(shape), [2.25, 4])
    np.testing.assert_array_equal(device.transfer_from_outfeed(shape), [-4, -5])


def test_random_numbers_with_xla_client_algorithms(client):
    c = xla_client.XlaBuilder("rng")
    shape = xla_client.Shape.array_shape(F32, (1000,))
    state = ops.Constant(c, np.array([1, 2], np.uint64))
    bits = ops.RngBitGenerator(ops.RandomAlgorithm.RNG_DEFAULT, state, xla_client.Shape.array_shape(U32, (4,)))
    ops.Tuple(c, [ops.RngUniform(ops.Constant(c, np.float32(2)), ops.Constant(c, np.float32(3)), shape),
                  ops.RngNormal(ops.Constant(c, np.float32(0)), ops.Constant(c, np.float32(1)), shape),
                  ops.GetTupleElement(bits, 0), ops.GetTupleElement(bits, 1)])
    uniform, normal, new_state, values = _execute(client, c)
    assert uniform.shape == (1000,) and uniform.min() >= 2 and uniform.max() < 3
    assert normal.shape == (1000,) and abs(normal.mean()) < 0.2 and 0.8 < normal.std() < 1.2   # 1000 draws of N(0, 1)
    assert new_state.shape == (2,) and values.shape == (4,) and len(set(values.tolist())) > 1


def test_custom_calls_with_xla_client_enums(client):
    c = xla_client.XlaBuilder("custom")
    shape = xla_client.Shape.array_shape(F32, (2,))
    x = ops.Constant(c, _f32([1, -2]))
    negated = ops.CustomCall(c, b"xla_semantics.negate", [x], shape, b"", False,
                             ops.CustomCallSchedule.SCHEDULE_LATEST, ops.CustomCallApiVersion.API_VERSION_ORIGINAL)
    laid_out = ops.CustomCallWithLayout(c, b"xla_semantics.add", [x, x], shape, [shape, shape], b"", False,
                                        ops.CustomCallSchedule.SCHEDULE_NONE,
                                        ops.CustomCallApiVersion.API_VERSION_STATUS_RETURNING)
    aliased = ops.CustomCallWithAliasing(c, b"xla_semantics.identity", [x], shape, [shape], b"", False,
                                         [((), (0, ()))], None, ops.CustomCallSchedule.SCHEDULE_EARLIEST,
                                         ops.CustomCallApiVersion.API_VERSION_TYPED_FFI)
    applied = ops.CustomCallWithComputation(c, b"xla_semantics.apply", [x], _unary_square(), shape)
    ops.Tuple(c, [negated, laid_out, aliased, applied])
    _compare_exact(client, c, [_f32([-1, 2]), _f32([2, -4]), _f32([1, -2]), _f32([1, 4])])


def _unary_square():
    c = xla_client.XlaBuilder("square")
    ops.Square(ops.Parameter(c, 0, xla_client.Shape.array_shape(F32, (2,))))
    return c.build()


# -- several devices -----------------------------------------------------------------------------------------------
def test_collectives_on_two_replicas(client):
    c = xla_client.XlaBuilder("collectives")
    x = ops.Parameter(c, 0, xla_client.Shape.array_shape(F32, (2,)))
    add = _scalar_computation("add", ops.Add)
    pairs = [(0, 1), (1, 0)]
    ops.Tuple(c, [ops.AllReduce(x, add), ops.CrossReplicaSum(x), ops.AllGather(x, 0, 2),
                  ops.ReduceScatter(x, add, 0, 2), ops.AllToAll(x, 0, 0, 2), ops.CollectivePermute(x, pairs),
                  ops.GetTupleElement(ops.MultiCollectivePermute([x, ops.Neg(x)], pairs), 1), ops.ReplicaId(c)])
    executable = client.compile(c.build(), xla_client.CompileOptions(num_replicas=2))
    replica0, replica1 = xla_client.execute_with_python_values_replicated(
        executable, [[_f32([1, 2])], [_f32([3, 4])]], backend=client)
    for r, (got, other) in enumerate(((replica0, [3, 4]), (replica1, [1, 2]))):
        np.testing.assert_array_equal(got[0], [4, 6])                 # [1,2] + [3,4]
        np.testing.assert_array_equal(got[1], [4, 6])
        np.testing.assert_array_equal(got[2], [1, 2, 3, 4])           # concatenated in replica order
        np.testing.assert_array_equal(got[3], [[4], [6]][r])          # the sum, element r
        np.testing.assert_array_equal(got[4], [[1, 3], [2, 4]][r])    # chunk r of each replica
        np.testing.assert_array_equal(got[5], other)                  # swapped
        np.testing.assert_array_equal(got[6], [-v for v in other])
        assert got[7] == r


# -- enums, value types, helpers, methods, errors ------------------------------------------------------------------
def test_enums_have_xla_client_members_and_values():
    assert {m.name: m.value for m in ops.TriangularSolveOptions_Transpose} == {
        "TRANSPOSE_INVALID": 0, "NO_TRANSPOSE": 1, "TRANSPOSE": 2, "ADJOINT": 3}
    assert {m.name: m.value for m in ops.RandomAlgorithm} == {"RNG_DEFAULT": 0, "RNG_THREE_FRY": 1, "RNG_PHILOX": 2}
    assert {m.name: m.value for m in ops.CustomCallSchedule} == {
        "SCHEDULE_NONE": 0, "SCHEDULE_LATEST": 1, "SCHEDULE_EARLIEST": 2}
    assert {m.name: m.value for m in ops.CustomCallApiVersion} == {
        "API_VERSION_ORIGINAL": 1, "API_VERSION_STATUS_RETURNING": 2, "API_VERSION_STATUS_RETURNING_UNIFIED": 3,
        "API_VERSION_TYPED_FFI": 4}
    assert {m.name: m.value for m in xla_client.FftType} == {"FFT": 0, "IFFT": 1, "RFFT": 2, "IRFFT": 3}
    assert {m.name: m.value for m in xla_client.PrecisionConfig_Precision} == {"DEFAULT": 0, "HIGH": 1, "HIGHEST": 2}
    assert xla_client.ResultAccuracy_Mode.DEFAULT.value == 0 and xla_client.ResultAccuracy_Mode.HIGHEST.value == 1
    assert {m.name for m in xla_client.PaddingType} == {"VALID", "SAME"}
    for name in ops.ENUMS:
        assert getattr(ops, name) is getattr(xla_client, name)


def test_value_types_are_protocol_buffer_like():
    values = [xla_client.ConvolutionDimensionNumbers(), xla_client.DotDimensionNumbers(),
              xla_client.GatherDimensionNumbers(), xla_client.ScatterDimensionNumbers(), xla_client.ReplicaGroup(),
              xla_client.PaddingConfig(), xla_client.PaddingConfigDimension(), xla_client.PrecisionConfig(),
              xla_client.ResultAccuracy(), xla_client.OpMetadata()]
    assert [type(v)() == v for v in values] == [True] * len(values)
    groups = xla_client.make_replica_groups([[0, 1]])
    assert groups[0].replica_ids == [0, 1]
    accuracy = xla_client.ResultAccuracy()
    accuracy.mode = xla_client.ResultAccuracy_Mode.HIGHEST
    metadata = xla_client.CurrentSourceInfoMetadata(op_type="Add", op_name="add")
    assert metadata.source_file == "test_xla_client_port.py" and metadata.op_type == "Add"
    assert xla_client.dtype_to_etype(np.float32) == xla_client.PrimitiveType.F32
    assert str(xla_client.shape_from_pyval(np.zeros((2, 3), np.int32))).startswith("s32[2,3]")


def test_builder_computation_and_shape_methods():
    c = xla_client.XlaBuilder("methods")
    c.set_op_metadata(xla_client.CurrentSourceInfoMetadata("Mul", "scale"))
    c.set_sharding(xla_client.OpSharding())
    x = ops.Parameter(c, 0, xla_client.Shape.array_shape(F32, (2,)), "x")
    c.clear_sharding()
    c.clear_op_metadata()
    k = ops.Constant(c, np.float32(2))
    y = ops.Mul(x, k)
    assert isinstance(y, xla_client.XlaOp) and str(c.get_shape(y)).startswith("f32[2]")
    assert c.is_constant(k) and not c.is_constant(y)
    program = c.get_program_shape()
    assert isinstance(program, xla_client.ProgramShape) and program.parameter_names() == ["x"]
    computation = c.build()
    assert isinstance(computation, xla_client.XlaComputation) and computation.name() == "methods"
    assert "mul(x.0" in computation.as_hlo_text() and str(computation.program_shape().result_shape()) \
        .startswith("f32[2]")
    tuple_shape = xla_client.Shape.tuple_shape([xla_client.Shape.array_shape(F32, (2,)), xla_client.Shape.token_shape()])
    assert tuple_shape.is_tuple() and tuple_shape.tuple_shapes()[1].is_token()


def test_client_devices_buffers_and_executables(client):
    devices = client.devices()
    assert client.device_count() == len(devices) == client.local_device_count() == len(client.local_devices()) >= 2
    assert client.process_index() == 0 and [d.id for d in devices[:2]] == [0, 1]
    assert client.get_default_device_assignment(2) == devices[:2]
    assert client.get_default_device_assignment(1, 2) == [devices[:2]]
    buffer = client.buffer_from_pyval(_f32([1, 2]), devices[1])
    assert buffer.device() is devices[1] and buffer.shape == (2,) and np.asarray(buffer).tolist() == [1, 2]
    c = xla_client.XlaBuilder("double")
    x = ops.Parameter(c, 0, xla_client.Shape.array_shape(F32, (2,)))
    ops.Add(x, x)
    executable = client.compile(c.build())
    assert executable.local_devices() == devices[:1]
    np.testing.assert_array_equal(executable.execute([buffer])[0], [2, 4])
    sharded = client.compile(c.build(), xla_client.CompileOptions(num_replicas=2))
    out = sharded.execute_sharded_on_local_devices([[_f32([1, 2]), _f32([3, 4])]])   # [argument][device]
    assert [np.asarray(b).tolist() for b in out[0]] == [[2, 4], [6, 8]]                # [result][device]


def test_errors_xla_client_code_catches(client):
    c = xla_client.XlaBuilder("neg")
    ops.Neg(ops.Parameter(c, 0, xla_client.Shape.array_shape(F32, (2,))))
    executable = client.compile(c.build())
    with pytest.raises(xla_client.XlaRuntimeError) as e:   # what `except xla_client.XlaRuntimeError` catches
        executable.execute([np.zeros(3, np.int32)])
    assert isinstance(e.value, RuntimeError) and isinstance(e.value, xla_client.OpError)
    assert "argument 0 must be f32[2], got int32[3]" in str(e.value)
    with pytest.raises(RuntimeError):
        xla_client.execute_with_python_values(executable, [np.zeros(2, np.float32), np.zeros(2, np.float32)], client)
    with pytest.raises(xla_client.NoCounterpartError, match="serialize_executable"):
        client.serialize_executable(executable)
    with pytest.raises(xla_client.UnsupportedError, match="cost_analysis"):
        executable.cost_analysis()
    assert not hasattr(client, "defragment")
    with pytest.raises(AttributeError, match="no attribute 'no_such_method'"):
        client.no_such_method()
    with pytest.raises(xla_client.NoCounterpartError, match="make_cpu_client"):
        xla_client.make_gpu_client()
    with pytest.raises(xla_client.UnsupportedError, match="devices"):
        client.compile(c.build(), xla_client.CompileOptions(num_replicas=client.device_count() + 1))


def test_every_name_of_the_porting_table_is_used_here():
    """Each op, enum and top-level name as ``ops.<name>`` or ``xla_client.<name>``, each method by its name."""
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    used = {(node.value.id, node.attr) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)}
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    missing = []
    for row in porting_table.rows():
        if row.kind == "method":
            found = row.name.split(".")[1] in attributes
        elif row.kind == "op" or row.name.startswith("ops."):
            found = ("ops", row.name.removeprefix("ops.")) in used
        else:
            found = ("xla_client", row.name) in used
        if not found:
            missing.append(row.name)
    assert not missing, missing
