"""Map, Scan, Sort and TopK: hand-computed values on reference and jax, both call forms, errors,
per-operand element types (the seed's argmax), and the spec schema's new pieces."""

import textwrap

import numpy as np
import pytest

import specs
from backend import OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.errors import SpecError
from backend.reference import IMPLEMENTATION_DEFINED

F32, S32, PRED = PrimitiveType.F32, PrimitiveType.S32, PrimitiveType.PRED
BACKENDS = ["reference", "jax"]


def _param(b, i, etype, dims, name=None):
    return ops.Parameter(b, i, Shape.array_shape(etype, dims), name or f"p{i}")


def _run(backend, comp, *args):
    return get_backend(backend).execute(comp, list(args))


def _scalars(name, *etypes):
    sub = XlaBuilder(name)
    return sub, [_param(sub, i, t, ()) for i, t in enumerate(etypes)]


# -- Map ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_map_with_an_array_static_operand(backend):
    # computation(x, v) = x + sum(v), v = [1, 2, 3] passed whole: [1, 2] -> [7, 8]
    sub = XlaBuilder("x_plus_sum")
    x, v = _param(sub, 0, F32, ()), _param(sub, 1, F32, (3,))
    add_sub, (a, c) = _scalars("add", F32, F32)
    ops.Add(a, c)
    zero = ops.Constant(sub, np.float32(0))
    ops.Add(x, ops.Reduce([v], [zero], add_sub.build(), [0]))
    b = XlaBuilder("map")
    xs, static = _param(b, 0, F32, (2,)), _param(b, 1, F32, (3,))
    ops.Map([xs], sub.build(), [0], [static])
    out = _run(backend, b.build(), np.array([1, 2], np.float32), np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(out[0], np.array([7, 8], np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_map_xla_client_form_and_mixed_types(backend):
    # Map(builder, operands, computation, dimensions): Select(pred, s32, s32) per element
    sub, (p, t, f) = _scalars("select", PRED, S32, S32)
    ops.Select(p, t, f)
    b = XlaBuilder("map")
    args = [_param(b, 0, PRED, (2, 2)), _param(b, 1, S32, (2, 2)), _param(b, 2, S32, (2, 2))]
    result = ops.Map(b, args, sub.build(), [0, 1])
    assert b.get_shape(result) == Shape.array_shape(S32, (2, 2))
    out = _run(backend, b.build(), np.array([[True, False], [False, True]]), np.array([[1, 2], [3, 4]], np.int32),
               np.array([[-1, -2], [-3, -4]], np.int32))
    np.testing.assert_array_equal(out[0], [[1, -2], [-3, 4]])


def test_map_errors():
    sub, (a, c) = _scalars("add", F32, F32)
    ops.Add(a, c)
    add = sub.build()
    b = XlaBuilder("map")
    x, y = _param(b, 0, F32, (2, 3)), _param(b, 1, F32, (2, 3))
    with pytest.raises(OpError, match="C3"):
        ops.Map([x, y], add, [1, 0])
    with pytest.raises(OpError, match="C4"):
        ops.Map([x], add, [0, 1])
    with pytest.raises(OpError) as info:
        ops.Map(XlaBuilder("other"), [x, y], add, [0, 1])
    assert "different builders" in str(info.value)
    with pytest.raises(OpError) as info:
        ops.Map(b, [], add, [])
    assert info.value.constraint == "C2"


# -- Scan --------------------------------------------------------------------------------------
def _fibonacci_step():
    """(x, c0, c1) -> (c0 * x, c1, c0 + c1): one output and two carries."""
    sub, (x, c0, c1) = _scalars("fib", S32, S32, S32)
    ops.Tuple(sub, [ops.Mul(c0, x), c1, ops.Add(c0, c1)])
    return sub.build()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_output_differs_from_carries(backend, reverse):
    # x = [1, 10, 100, 1000], carries (0, 1): the outputs are c0 * x with c0 = 0, 1, 1, 2 in visiting order
    b = XlaBuilder("scan")
    x, c0, c1 = _param(b, 0, S32, (4,)), _param(b, 1, S32, ()), _param(b, 2, S32, ())
    ops.Scan([x], [c0, c1], _fibonacci_step(), 0, is_reverse=reverse)
    out = _run(backend, b.build(), np.array([1, 10, 100, 1000], np.int32), np.int32(0), np.int32(1))
    expected = [2, 10, 100, 0] if reverse else [0, 10, 100, 2000]  # reverse: c0 = 0, 1, 1, 2 at 3, 2, 1, 0
    np.testing.assert_array_equal(out[0], expected)
    assert (int(out[1]), int(out[2])) == (3, 5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_with_no_outputs_is_a_fold(backend):
    sub, (x, c) = _scalars("max", F32, F32)
    ops.Tuple(sub, [ops.Max(x, c)])
    b = XlaBuilder("scan")
    ops.Scan([_param(b, 0, F32, (3,))], [_param(b, 1, F32, ())], sub.build(), 0)
    assert b.build().root_instruction.shape == Shape.tuple_shape([Shape.scalar_shape(F32)])
    out = _run(backend, b.build(), np.array([2, 9, -1], np.float32), np.float32(0))
    assert float(out[0]) == 9


# -- Sort --------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_xla_client_form_default_comparator(backend):
    b = XlaBuilder("sort")
    keys, values = _param(b, 0, F32, (5,)), _param(b, 1, S32, (5,))
    ops.Sort(b, [keys, values], is_stable=True)  # the default comparator: keys[i] < keys[j]
    out = _run(backend, b.build(), np.array([2, -1, 2, 0.5, -1], np.float32), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(out[0], [-1, -1, 0.5, 2, 2])
    np.testing.assert_array_equal(out[1], [1, 4, 3, 0, 2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_by_absolute_value(backend):
    # a comparator no jax sort builds: |a| < |b|, stable: [-3, 1, -2, 0, 2] -> [0, 1, -2, 2, -3]
    sub, (p0, p1) = _scalars("abs_less", S32, S32)
    ops.Lt(ops.Abs(p0), ops.Abs(p1))
    b = XlaBuilder("sort")
    ops.Sort([_param(b, 0, S32, (5,))], sub.build(), is_stable=True)
    out = _run(backend, b.build(), np.array([-3, 1, -2, 0, 2], np.int32))
    np.testing.assert_array_equal(out[0], [0, 1, -2, 2, -3])


@pytest.mark.parametrize("backend", BACKENDS)
def test_unstable_sort_with_ties_gives_an_allowed_outcome(backend):
    sub, (k0, k1, _, _) = _scalars("key_less", S32, S32, S32, S32)
    ops.Lt(k0, k1)
    b = XlaBuilder("sort")
    ops.Sort([_param(b, 0, S32, (6,)), _param(b, 1, S32, (6,))], sub.build(), 0, False)
    keys, values = np.array([1, 0, 1, 0, 1, 2], np.int32), np.arange(6, dtype=np.int32)
    out = _run(backend, b.build(), keys, values)
    np.testing.assert_array_equal(out[0], [0, 0, 1, 1, 1, 2])
    assert sorted(out[1][:2]) == [1, 3] and sorted(out[1][2:5]) == [0, 2, 4] and out[1][5] == 5
    # the implementation-defined mask covers exactly the tied runs
    comp = b.build()
    from backend.reference import EVALUATORS
    from backend.runtime.walker import EvalContext, GraphWalker
    ctx = EvalContext(comp.root_instruction, GraphWalker("reference", EVALUATORS), [keys, values])
    table = IMPLEMENTATION_DEFINED.get("Sort")(ctx, [keys, values])
    ties = table["unstable_ties"]
    for output in (0, 1):
        np.testing.assert_array_equal(ties.mask_of(output, (6,)), [True, True, True, True, True, False])
        assert not table["not_a_strict_weak_order"].mask_of(output, (6,)).any()  # Lt on integers is one
    # the other outcome: each tied run holds the stable order's (key, value) pairs, in any order
    check = ties.outcomes["any_order_of_ties"].check
    sorted_keys = np.array([0, 0, 1, 1, 1, 2], np.int32)
    assert [m.tolist() for m in check((sorted_keys, np.array([3, 1, 4, 0, 2, 5], np.int32)))] == [[True] * 5 + [False]] * 2
    assert [m.tolist() for m in check((sorted_keys, np.array([1, 0, 3, 2, 4, 5], np.int32)))] == [[False] * 6] * 2


def test_sort_errors_and_forms():
    b = XlaBuilder("sort")
    x, y = _param(b, 0, F32, (3,)), _param(b, 1, F32, (4,))
    with pytest.raises(OpError) as info:
        ops.Sort([x, y])
    assert info.value.constraint == "C2"
    with pytest.raises(OpError) as info:
        ops.Sort([x], dimension=-2)
    assert info.value.constraint == "C3"
    with pytest.raises(OpError) as info:
        ops.Sort([x], comparator="less")
    assert info.value.arg == "comparator"
    with pytest.raises(OpError) as info:
        ops.Sort(b, [x], bogus=1)
    assert "unknown argument 'bogus'" in str(info.value)
    with pytest.raises(OpError) as info:
        ops.Sort(b, [])
    assert info.value.constraint == "arg-type"


# -- TopK --------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_top_k_both_forms(backend):
    b = XlaBuilder("top_k")
    x = _param(b, 0, F32, (2, 4))
    ops.TopK(input=x, k=2)  # xla_client's keyword; the same as TopK(x, 2) and TopK(operand=x, k=2, largest=True)
    data = np.array([[1, np.nan, 3, 3], [-0.0, 0.0, -np.inf, -1]], np.float32)
    values, indices = _run(backend, b.build(), data)
    np.testing.assert_array_equal(values, [[np.nan, 3], [0.0, -0.0]])
    assert list(np.signbit(values[1])) == [False, True]
    np.testing.assert_array_equal(indices, [[1, 2], [1, 0]])
    b2 = XlaBuilder("smallest")
    ops.TopK(_param(b2, 0, F32, (2, 4)), 3, largest=False)
    values, indices = _run(backend, b2.build(), data)
    np.testing.assert_array_equal(indices, [[0, 2, 3], [2, 3, 0]])


def test_top_k_errors():
    b = XlaBuilder("top_k")
    x = _param(b, 0, F32, (3,))
    with pytest.raises(OpError) as info:
        ops.TopK(x, 4)
    assert info.value.constraint == "C3"
    with pytest.raises(OpError) as info:
        ops.TopK(x, "2")
    assert info.value.arg == "k"
    with pytest.raises(OpError):
        ops.TopK(input=x, operand=x, k=1)


# -- per-operand element types -----------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_seed_argmax_reduce_over_f32_and_s32(backend):
    sub, (m, am, v, i) = _scalars("argmax", F32, S32, F32, S32)
    take = ops.Ge(v, m)
    ops.Tuple(sub, [ops.Select(take, v, m), ops.Select(take, i, am)])
    b = XlaBuilder("argmax")
    values, index = _param(b, 0, F32, (2, 4)), _param(b, 1, S32, (2, 4))
    ops.Reduce([values, index], [_param(b, 2, F32, ()), _param(b, 3, S32, ())], sub.build(), [1])
    data = np.array([[3, 8, -1, 2], [0.5, -4, 6, 5]], np.float32)
    out = _run(backend, b.build(), data, np.tile(np.arange(4, dtype=np.int32), (2, 1)), np.float32(-np.inf),
               np.int32(-1))
    np.testing.assert_array_equal(out[0], [8, 6])
    np.testing.assert_array_equal(out[1], [1, 2])


def test_per_operand_type_variables_pair_position_by_position():
    b = XlaBuilder("types")
    f, s = _param(b, 0, F32, (2,)), _param(b, 1, S32, (2,))
    sub, _ = _scalars("add", F32, F32)
    with pytest.raises(OpError) as info:
        ops.Reduce([f, s], [_param(b, 2, S32, ()), _param(b, 3, F32, ())], sub.build(), [0])
    assert info.value.constraint == "C1" and "init_values[0]" in str(info.value)
    assert specs.get("Sort").arg("operands").per_operand


SPEC = textwrap.dedent("""\
    op: Sort
    family: higher_order
    summary: test copy.
    signatures: ["Sort(operands)"]
    {call_forms}
    args:
      operands: {{kind: {kind}, element: T_i}}
    element_types: {{T: [any]}}
    type_constraint: C1
    constraints:
      C1: arrays.
    examples: []
    errors:
      - {{violates: C1, inputs: {{operands: ["token[]"]}}}}
    tolerance: exact
    """)


def test_loader_checks_per_operand_variables_and_call_forms(tmp_path):
    path = tmp_path / "sort.yaml"
    path.write_text(SPEC.format(kind="operands", call_forms="call_forms: [{args: [builder, operands]}]"))
    assert specs.load_file(path).call_forms[0].extra_builder
    path.write_text(SPEC.format(kind="operand", call_forms=""))
    with pytest.raises(SpecError, match="per-operand type variable"):
        specs.load_file(path)
    path.write_text(SPEC.format(kind="operands", call_forms="call_forms: [{args: [operands, builder]}]"))
    with pytest.raises(SpecError, match="call_forms"):
        specs.load_file(path)
    path.write_text(SPEC.format(kind="operands", call_forms="call_forms: [{args: [x], rename: {x: nothing}}]"))
    with pytest.raises(SpecError, match="rename"):
        specs.load_file(path)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reduce_xla_client_form(backend):
    sub, (a, c) = _scalars("add", S32, S32)
    ops.Add(a, c)
    b = XlaBuilder("reduce")
    ops.Reduce(b, [_param(b, 0, S32, (2, 3))], [_param(b, 1, S32, ())], sub.build(), [1])
    out = _run(backend, b.build(), np.array([[1, 2, 3], [4, 5, 6]], np.int32), np.int32(10))
    np.testing.assert_array_equal(out[0], [16, 25])


def test_loader_rejects_an_unknown_computation_description_key(tmp_path):
    good, bad = "{op: Lt, compare: 1}}\n", "{op: Lt, compare: 1, kyes: [0]}}\n"
    text = specs.get("Sort").path.read_text().replace(good, bad, 1)
    path = tmp_path / "sort.yaml"
    path.write_text(text)
    with pytest.raises(SpecError, match=r"sort.yaml:\d+: examples\[\d+\].attrs.comparator: .*kyes"):
        specs.load_file(path)
