"""Reduce, ReduceWindow and SelectAndScatter: hand-computed values, variadic forms (per-operand element types:
the seed's argmax), xla_client's call form, errors, Pallas, and ReduceWindow's padding cells with an init value
that is no identity (an implementation-defined entry narrowed to a closed set)."""

import jax
import numpy as np
import pytest

import specs
from backend import OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops
from conformance import cases_for, run_cases
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
from tests.support.cases import allowed_table, golden_case
from tests.support.computations import binary_computation, scalar_parameters
from tests.support.running import array_parameter

F32, S32 = PrimitiveType.F32, PrimitiveType.S32
BACKENDS = ["reference", "jax"]


def _params(b, *shapes):
    return [ops.Parameter(b, i, Shape.array_shape(F32, s), f"p{i}") for i, s in enumerate(shapes)]


def _argmax_computation():
    """The document's f(max, argmax, value, index): (value, index) if value >= max, else (max, argmax)."""
    sub = XlaBuilder("argmax")
    m, am, v, i = (ops.Parameter(sub, k, Shape.scalar_shape(F32), n) for k, n in enumerate(["m", "am", "v", "i"]))
    take = ops.Ge(v, m)
    ops.Tuple(sub, [ops.Select(take, v, m), ops.Select(take, i, am)])
    return sub.build()


def _sum_and_max_computation():
    sub = XlaBuilder("sum_and_max")
    a, b, c, d = (ops.Parameter(sub, k, Shape.scalar_shape(F32), f"p{k}") for k in range(4))
    ops.Tuple(sub, [ops.Add(a, c), ops.Max(b, d)])
    return sub.build()


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_seed_3d_over_two_dimensions(backend):
    b = XlaBuilder("r")
    x, init = _params(b, (4, 2, 3), ())
    ops.Reduce([x], [init], binary_computation(ops.Add), [1, 0])
    data = np.tile(np.array([[1, 2, 3], [4, 5, 6]], np.float32), (4, 1, 1))
    out = get_backend(backend).execute(b.build(), [data, np.float32(0)])
    np.testing.assert_array_equal(out[0], np.array([20, 28, 36], np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_variadic_reduce_max_and_argmax(backend):
    b = XlaBuilder("argmax")
    values, indices, m0, i0 = _params(b, (2, 5), (2, 5), (), ())
    ops.Reduce([values, indices], [m0, i0], _argmax_computation(), [1])
    comp = b.build()
    assert comp.root_instruction.shape.is_tuple()
    v = np.array([[1, 5, 2, 7, 3], [-1, -4, -0.5, -2, -3]], np.float32)
    idx = np.tile(np.arange(5, dtype=np.float32), (2, 1))
    out = get_backend(backend).execute(comp, [v, idx, np.float32(-np.inf), np.float32(-1)])
    np.testing.assert_array_equal(out[0], [7, -0.5])
    np.testing.assert_array_equal(out[1], [3, 2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_variadic_reduce_window_sum_and_max(backend):
    b = XlaBuilder("rw2")
    x, y, s0, m0 = _params(b, (5,), (5,), (), ())
    ops.ReduceWindow([x, y], [s0, m0], _sum_and_max_computation(), [2], [2], [[0, 1]])
    data = np.array([1, 2, 3, 4, 5], np.float32)
    out = get_backend(backend).execute(b.build(), [data, -data, np.float32(0), np.float32(-np.inf)])
    np.testing.assert_array_equal(out[0], [3, 7, 5])    # windows [1,2], [3,4], [5,pad]
    np.testing.assert_array_equal(out[1], [-1, -3, -5])


@pytest.mark.parametrize("backend", BACKENDS)
def test_select_and_scatter_overlapping_windows_accumulate(backend):
    b = XlaBuilder("sas")
    operand = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.S32, (3, 4)), "operand")
    source = ops.Parameter(b, 1, Shape.array_shape(PrimitiveType.S32, (2, 2)), "source")
    init = ops.Parameter(b, 2, Shape.scalar_shape(PrimitiveType.S32), "init")
    s32 = PrimitiveType.S32
    ops.SelectAndScatter(operand, binary_computation(ops.Ge, s32), [2, 3], [1, 1], [[0, 0], [0, 0]],
                         source, init, binary_computation(ops.Add, s32))
    x = np.array([[1, 2, 9, 3], [4, 5, 6, 2], [0, 1, 3, 7]], np.int32)
    out = get_backend(backend).execute(b.build(), [x, np.array([[2, 6], [3, 1]], np.int32), np.int32(0)])
    np.testing.assert_array_equal(out[0], [[0, 0, 8, 0], [0, 0, 3, 0], [0, 0, 0, 1]])


def _error(fn):
    with pytest.raises(OpError) as info:
        fn()
    return info.value.constraint


def test_error_constraints():
    b = XlaBuilder("errors")
    x, init = _params(b, (2, 3), ())
    add = binary_computation(ops.Add)
    idx = ops.Parameter(b, 2, Shape.array_shape(PrimitiveType.S32, (2, 3)), "idx")
    idx0 = ops.Parameter(b, 3, Shape.scalar_shape(PrimitiveType.S32), "idx0")
    assert _error(lambda: ops.Reduce([x], [init], add, [2])) == "C6"
    assert _error(lambda: ops.Reduce([x, idx], [idx0, init], add, [1])) == "C1"  # init i has operand i's type
    assert _error(lambda: ops.Reduce([x, idx], [init, idx0], add, [1])) == "C5"  # (f32, s32) is fine: 4 params
    assert _error(lambda: ops.Reduce([x], [init], binary_computation(ops.Ge), [1])) == "C5"
    assert _error(lambda: ops.ReduceWindow([x], [init], add, [1, 0], [1, 1], [[0, 0], [0, 0]])) == "C7"
    assert _error(lambda: ops.ReduceWindow([x], [init], add, [1], [1], [[0, 0]])) == "C6"
    src = ops.Parameter(b, 4, Shape.array_shape(F32, (2, 2)), "src")
    ge = binary_computation(ops.Ge)
    assert _error(lambda: ops.SelectAndScatter(x, ge, [2, 2], [2, 2], [[0, 0], [0, 0]], src, init, add)) == "C7"
    assert _error(lambda: ops.SelectAndScatter(x, add, [1, 1], [1, 1], [[0, 0], [0, 0]], x, init, add)) == "C3"


# -- per-operand element types, xla_client's call form -------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_argmax_reduce_over_f32_and_s32(backend):
    sub, (m, am, v, i) = scalar_parameters("argmax", F32, S32, F32, S32)
    take = ops.Ge(v, m)
    ops.Tuple(sub, [ops.Select(take, v, m), ops.Select(take, i, am)])
    b = XlaBuilder("argmax")
    values, index = array_parameter(b, 0, F32, (2, 4)), array_parameter(b, 1, S32, (2, 4))
    ops.Reduce([values, index], [array_parameter(b, 2, F32, ()), array_parameter(b, 3, S32, ())], sub.build(), [1])
    data = np.array([[3, 8, -1, 2], [0.5, -4, 6, 5]], np.float32)
    out = get_backend(backend).execute(b.build(), [data, np.tile(np.arange(4, dtype=np.int32), (2, 1)),
                                                   np.float32(-np.inf), np.int32(-1)])
    np.testing.assert_array_equal(out[0], [8, 6])
    np.testing.assert_array_equal(out[1], [1, 2])


def test_per_operand_type_variables_pair_position_by_position():
    b = XlaBuilder("types")
    f, s = array_parameter(b, 0, F32, (2,)), array_parameter(b, 1, S32, (2,))
    sub, _ = scalar_parameters("add", F32, F32)
    with pytest.raises(OpError) as info:
        ops.Reduce([f, s], [array_parameter(b, 2, S32, ()), array_parameter(b, 3, F32, ())], sub.build(), [0])
    assert info.value.constraint == "C1" and "init_values[0]" in str(info.value)
    assert specs.get("Sort").arg("operands").per_operand


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_xla_client_form(backend):
    sub, (a, c) = scalar_parameters("add", S32, S32)
    ops.Add(a, c)
    b = XlaBuilder("reduce")
    ops.Reduce(b, [array_parameter(b, 0, S32, (2, 3))], [array_parameter(b, 1, S32, ())], sub.build(), [1])
    out = get_backend(backend).execute(b.build(), [np.array([[1, 2, 3], [4, 5, 6]], np.int32), np.int32(10)])
    np.testing.assert_array_equal(out[0], [16, 25])


@pytest.mark.parametrize("op", ["ReduceWindow", "SelectAndScatter"])
def test_pallas_backend_golden_and_generated_cases(op):
    cases = [c for c in cases_for(specs.get(op)) if c.kind != "error"]
    picked = [c for c in cases if c.kind == "golden"][:6] + [c for c in cases if c.kind == "generated"][::8]
    results = run_cases(picked, get_backend("pallas"))
    bad = [f"{r.case.id}: {r.message}" for r in results if r.status == FAILED]
    assert not bad, "\n".join(bad)
    assert sum(r.status == PASSED for r in results) >= len(picked) - 1


def _pool_computation(op):
    b = XlaBuilder(op)
    x = ops.Parameter(b, 0, Shape.array_shape(F32, (8, 128)), "x")
    zero = ops.Constant(b, np.float32(0))
    if op == "ReduceWindow":
        ops.ReduceWindow([x], [zero], binary_computation(ops.Add), [2, 2], [2, 2], [[0, 0], [0, 0]])
    else:
        src = ops.Parameter(b, 1, Shape.array_shape(F32, (4, 64)), "src")
        ops.SelectAndScatter(x, binary_computation(ops.Ge), [2, 2], [2, 2], [[0, 0], [0, 0]], src, zero,
                             binary_computation(ops.Add))
    return b.build()


@pytest.mark.parametrize("op", ["ReduceWindow", "SelectAndScatter"])
def test_builder_computation_lowers_to_a_pallas_kernel(op):
    fn = get_backend("pallas").lower(_pool_computation(op))
    args = [jax.ShapeDtypeStruct((8, 128), np.float32)]
    if op == "SelectAndScatter":
        args.append(jax.ShapeDtypeStruct((4, 64), np.float32))
    text = fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text()
    assert "tpu_custom_call" in text


# -- ReduceWindow: an init value that is no identity, over padding ---------------------------------------
def test_padding_cells_may_hold_the_init_value_and_nothing_else() -> None:
    # Add from 10, window 3, stride 2, padding (1, 1) over [1, 2, 3, 4, 5]: windows [pad, 1, 2], [2, 3, 4],
    # [4, 5, pad]; the init once: 13, 19, 19; padding cells holding 10 too: 23, 19, 29
    inputs = {"operands": [np.int32([1, 2, 3, 4, 5])], "init_values": [np.int32(10)]}
    attrs = {"computation": {"op": "Add"}, "window_dimensions": [3], "window_strides": [2], "padding": [[1, 1]]}
    allowed = allowed_table("ReduceWindow", inputs, attrs)["non_identity_init"]
    assert allowed.mask.tolist() == [True, False, True]
    assert allowed.outcomes["padded_with_init"].tolist() == [23, 19, 29]
    case = golden_case("ReduceWindow", inputs, np.int32([13, 19, 19]), attrs, tag="non_identity_init")

    class Answers:
        name = "answers"

        def __init__(self, value):
            self.value = value

        def supports(self, computation):
            return None

        def execute(self, computation, arguments):
            return [np.int32(self.value)]
    stablehlo = run_case(case, Answers([23, 19, 29]))
    assert stablehlo.status == IMPL_DEFINED and "padded_with_init" in stablehlo.message
    assert run_case(case, Answers([23, 19, 29]), profile="xla").status == FAILED
    assert run_case(case, Answers([23, 29, 29])).status == FAILED  # the middle window touches no padding
    assert run_case(case, get_backend("jax")).status == PASSED


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_window_rank0_applies_the_init_value_once(backend):
    """A scalar operand has one window of no dimension: init + x = 10 + 2.5 = 12.5 (jax returned 2.5, the operand)."""
    b = XlaBuilder("rw0")
    x, init = _params(b, (), ())
    ops.ReduceWindow([x], [init], binary_computation(ops.Add), [], [], [])
    out = get_backend(backend).execute(b.build(), [np.float32(2.5), np.float32(10)])
    assert out[0].shape == () and out[0] == np.float32(12.5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_window_rank0_variadic_with_a_user_computation(backend):
    """(sum, max) from inits (1, 9) over scalars (2, 5): (1 + 2, max(9, 5)) = (3, 9)."""
    b = XlaBuilder("rw0v")
    x, y, s0, m0 = _params(b, (), (), (), ())
    ops.ReduceWindow([x, y], [s0, m0], _sum_and_max_computation(), [], [], [])
    out = get_backend(backend).execute(b.build(), [np.float32(2), np.float32(5), np.float32(1), np.float32(9)])
    assert (float(out[0]), float(out[1])) == (3.0, 9.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["rank0_operand_non_identity_init", "rank0_two_operands_max"])
def test_reduce_window_rank0_golden_cases_pass(backend, name):
    picked = [c for c in cases_for(specs.get("ReduceWindow")) if c.kind == "golden" and f"/{name}" in c.id]
    assert len(picked) == 2  # operands as Parameters and as Constants
    assert [run_case(c, get_backend(backend)).status for c in picked] == [PASSED, PASSED]


# -- window attributes XLA's builder takes empty -------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_window_strides_padding_and_dilations_mean_the_defaults(backend):
    """XLA's builder (MakeWindow) takes an empty list as the default in every window dimension: stride 1, no
    padding, dilation 1; the instruction records the filled-in values."""
    b = XlaBuilder("windows")
    x = ops.Constant(b, np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    zero = ops.Constant(b, np.float32(0))
    summed = ops.ReduceWindow([x], [zero], binary_computation(ops.Add), [1, 2], [], [], [], [])
    scattered = ops.SelectAndScatter(ops.Constant(b, np.array([1, 5, 2], np.float32)), binary_computation(ops.Ge), [2],
                                     [], [], ops.Constant(b, np.array([10, 20], np.float32)), zero,
                                     binary_computation(ops.Add))
    computation = b.build(ops.Tuple(b, [summed, scattered]))
    assert ("window_strides={1,1}, padding={{0,0},{0,0}}, base_dilations={1,1}, window_dilations={1,1}"
            in computation.as_hlo_text())
    out = get_backend(backend).execute(computation, [])
    np.testing.assert_array_equal(out[0], [[3, 5], [9, 11]])   # pairs along each row: 1+2, 2+3, 4+5, 5+6
    np.testing.assert_array_equal(out[1], [0, 30, 0])          # windows [1,5] and [5,2] both select the 5


def test_a_window_list_of_another_length_is_still_refused():
    b = XlaBuilder("windows")
    x = ops.Constant(b, np.zeros((2, 3), np.float32))
    with pytest.raises(OpError) as e:
        ops.ReduceWindow([x], [ops.Constant(b, np.float32(0))], binary_computation(ops.Add), [1, 2], [1], [], [], [])
    assert (e.value.constraint, e.value.arg) == ("C6", "window_strides")
