"""Map, Scan, Sort, TopK and ApproxTopK: hand-computed values on reference and jax, both call forms, errors,
the spec schema's new pieces, and the implementation-defined entries narrowed to closed sets.

ApproxTopKReductionOutputSize's values are worked out by hand from XLA's formula (in the comments); ApproxTopK's
closed outcome sets are shown to accept what XLA on TPU may return and to reject the rest. Sort with ties and
with comparators that are no strict weak order, and Scan's re-association (the shared Higham bound): each allowed
outcome is accepted and a wrong value rejected (``-m slow`` runs the mutants on every case).
"""

import textwrap

import numpy as np
import pytest

import specs
from backend import OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.errors import SpecError
from backend.reference import IMPLEMENTATION_DEFINED
from backend.reference.allowed import Holds
from backend.rules.higher_order import ApproxTopKReductionOutputSize
from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
from tests.support.cases import FunctionBackend, allowed_table, golden_case
from tests.support.computations import scalar_parameters
from tests.support.mutant_backends import mutant_backend
from tests.support.running import array_parameter

F32, S32, PRED = PrimitiveType.F32, PrimitiveType.S32, PrimitiveType.PRED
BACKENDS = ["reference", "jax"]
nan = np.nan


def _run(backend, comp, *args):
    return get_backend(backend).execute(comp, list(args))


# -- Map ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_map_with_an_array_static_operand(backend):
    # computation(x, v) = x + sum(v), v = [1, 2, 3] passed whole: [1, 2] -> [7, 8]
    sub = XlaBuilder("x_plus_sum")
    x, v = array_parameter(sub, 0, F32, ()), array_parameter(sub, 1, F32, (3,))
    add_sub, (a, c) = scalar_parameters("add", F32, F32)
    ops.Add(a, c)
    zero = ops.Constant(sub, np.float32(0))
    ops.Add(x, ops.Reduce([v], [zero], add_sub.build(), [0]))
    b = XlaBuilder("map")
    xs, static = array_parameter(b, 0, F32, (2,)), array_parameter(b, 1, F32, (3,))
    ops.Map([xs], sub.build(), [0], [static])
    out = _run(backend, b.build(), np.array([1, 2], np.float32), np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(out[0], np.array([7, 8], np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_map_xla_client_form_and_mixed_types(backend):
    # Map(builder, operands, computation, dimensions): Select(pred, s32, s32) per element
    sub, (p, t, f) = scalar_parameters("select", PRED, S32, S32)
    ops.Select(p, t, f)
    b = XlaBuilder("map")
    args = [array_parameter(b, 0, PRED, (2, 2)), array_parameter(b, 1, S32, (2, 2)), array_parameter(b, 2, S32, (2, 2))]
    result = ops.Map(b, args, sub.build(), [0, 1])
    assert b.get_shape(result) == Shape.array_shape(S32, (2, 2))
    out = _run(backend, b.build(), np.array([[True, False], [False, True]]), np.array([[1, 2], [3, 4]], np.int32),
               np.array([[-1, -2], [-3, -4]], np.int32))
    np.testing.assert_array_equal(out[0], [[1, -2], [-3, 4]])


def test_map_errors():
    sub, (a, c) = scalar_parameters("add", F32, F32)
    ops.Add(a, c)
    add = sub.build()
    b = XlaBuilder("map")
    x, y = array_parameter(b, 0, F32, (2, 3)), array_parameter(b, 1, F32, (2, 3))
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
    sub, (x, c0, c1) = scalar_parameters("fib", S32, S32, S32)
    ops.Tuple(sub, [ops.Mul(c0, x), c1, ops.Add(c0, c1)])
    return sub.build()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_output_differs_from_carries(backend, reverse):
    # x = [1, 10, 100, 1000], carries (0, 1): the outputs are c0 * x with c0 = 0, 1, 1, 2 in visiting order
    b = XlaBuilder("scan")
    x, c0, c1 = array_parameter(b, 0, S32, (4,)), array_parameter(b, 1, S32, ()), array_parameter(b, 2, S32, ())
    ops.Scan([x], [c0, c1], _fibonacci_step(), 0, is_reverse=reverse)
    out = _run(backend, b.build(), np.array([1, 10, 100, 1000], np.int32), np.int32(0), np.int32(1))
    expected = [2, 10, 100, 0] if reverse else [0, 10, 100, 2000]  # reverse: c0 = 0, 1, 1, 2 at 3, 2, 1, 0
    np.testing.assert_array_equal(out[0], expected)
    assert (int(out[1]), int(out[2])) == (3, 5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_with_no_outputs_is_a_fold(backend):
    sub, (x, c) = scalar_parameters("max", F32, F32)
    ops.Tuple(sub, [ops.Max(x, c)])
    b = XlaBuilder("scan")
    ops.Scan([array_parameter(b, 0, F32, (3,))], [array_parameter(b, 1, F32, ())], sub.build(), 0)
    assert b.build().root_instruction.shape == Shape.tuple_shape([Shape.scalar_shape(F32)])
    out = _run(backend, b.build(), np.array([2, 9, -1], np.float32), np.float32(0))
    assert float(out[0]) == 9


# -- Sort --------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_xla_client_form_default_comparator(backend):
    b = XlaBuilder("sort")
    keys, values = array_parameter(b, 0, F32, (5,)), array_parameter(b, 1, S32, (5,))
    ops.Sort(b, [keys, values], is_stable=True)  # the default comparator: keys[i] < keys[j]
    out = _run(backend, b.build(), np.array([2, -1, 2, 0.5, -1], np.float32), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(out[0], [-1, -1, 0.5, 2, 2])
    np.testing.assert_array_equal(out[1], [1, 4, 3, 0, 2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_by_absolute_value(backend):
    # a comparator no jax sort builds: |a| < |b|, stable: [-3, 1, -2, 0, 2] -> [0, 1, -2, 2, -3]
    sub, (p0, p1) = scalar_parameters("abs_less", S32, S32)
    ops.Lt(ops.Abs(p0), ops.Abs(p1))
    b = XlaBuilder("sort")
    ops.Sort([array_parameter(b, 0, S32, (5,))], sub.build(), is_stable=True)
    out = _run(backend, b.build(), np.array([-3, 1, -2, 0, 2], np.int32))
    np.testing.assert_array_equal(out[0], [0, 1, -2, 2, -3])


@pytest.mark.parametrize("backend", BACKENDS)
def test_unstable_sort_with_ties_gives_an_allowed_outcome(backend):
    sub, (k0, k1, _, _) = scalar_parameters("key_less", S32, S32, S32, S32)
    ops.Lt(k0, k1)
    b = XlaBuilder("sort")
    ops.Sort([array_parameter(b, 0, S32, (6,)), array_parameter(b, 1, S32, (6,))], sub.build(), 0, False)
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
    x, y = array_parameter(b, 0, F32, (3,)), array_parameter(b, 1, F32, (4,))
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
    x = array_parameter(b, 0, F32, (2, 4))
    ops.TopK(input=x, k=2)  # xla_client's keyword; the same as TopK(x, 2) and TopK(operand=x, k=2, largest=True)
    data = np.array([[1, np.nan, 3, 3], [-0.0, 0.0, -np.inf, -1]], np.float32)
    values, indices = _run(backend, b.build(), data)
    np.testing.assert_array_equal(values, [[np.nan, 3], [0.0, -0.0]])
    assert list(np.signbit(values[1])) == [False, True]
    np.testing.assert_array_equal(indices, [[1, 2], [1, 0]])
    b2 = XlaBuilder("smallest")
    ops.TopK(array_parameter(b2, 0, F32, (2, 4)), 3, largest=False)
    values, indices = _run(backend, b2.build(), data)
    np.testing.assert_array_equal(indices, [[0, 2, 3], [2, 3, 0]])


def test_top_k_errors():
    b = XlaBuilder("top_k")
    x = array_parameter(b, 0, F32, (3,))
    with pytest.raises(OpError) as info:
        ops.TopK(x, 4)
    assert info.value.constraint == "C3"
    with pytest.raises(OpError) as info:
        ops.TopK(x, "2")
    assert info.value.arg == "k"
    with pytest.raises(OpError):
        ops.TopK(input=x, operand=x, k=1)


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


def test_loader_rejects_an_unknown_computation_description_key(tmp_path):
    good, bad = "{op: Lt, compare: 1}}\n", "{op: Lt, compare: 1, kyes: [0]}}\n"
    text = specs.get("Sort").path.read_text().replace(good, bad, 1)
    path = tmp_path / "sort.yaml"
    path.write_text(text)
    with pytest.raises(SpecError, match=r"sort.yaml:\d+: examples\[\d+\].attrs.comparator: .*kyes"):
        specs.load_file(path)


# -- Sort ----------------------------------------------------------------------------------------------
def test_unstable_ties_move_every_operand_by_one_permutation() -> None:
    # keys [1, 0, 1, 0], a [0, 1, 2, 3], b [10, 11, 12, 13]: stable: keys [0, 0, 1, 1], a [1, 3, 0, 2], b [11, 13, 10, 12]
    inputs = {"operands": [np.int32([1, 0, 1, 0]), np.int32([0, 1, 2, 3]), np.int32([10, 11, 12, 13])]}
    attrs = {"comparator": {"op": "Lt", "compare": 3}}
    check = allowed_table("Sort", inputs, attrs)["unstable_ties"].outcomes["any_order_of_ties"].check
    keys = np.int32([0, 0, 1, 1])
    together = (keys, np.int32([3, 1, 2, 0]), np.int32([13, 11, 12, 10]))  # both runs reversed, pairs kept
    assert all(m.all() for m in check(together))
    apart = (keys, np.int32([1, 3, 0, 2]), np.int32([13, 11, 10, 12]))  # b's first run reversed, a's not
    assert [m.tolist() for m in check(apart)] == [[False, False, True, True]] * 3
    expected = tuple(np.int32(v) for v in ([0, 0, 1, 1], [1, 3, 0, 2], [11, 13, 10, 12]))
    result = run_case(golden_case("Sort", inputs, expected, attrs, tag="unstable_ties"),
                      mutant_backend("sort_operands_permuted_apart"))
    assert result.status == FAILED and "unstable_ties" in result.message


def test_no_strict_weak_order_allows_only_permutations_of_the_bad_rows() -> None:
    # row 0 holds NaN (Lt is no strict weak order there), row 1 does not (its order is the usual one)
    keys = np.float32([[3, nan, 1, 2, 0], [4, 3, 2, 1, 0]])
    pos = np.int32([[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]])
    inputs, attrs = {"operands": [keys, pos]}, {"comparator": {"op": "Lt", "compare": 2}}
    allowed = allowed_table("Sort", inputs, attrs)["not_a_strict_weak_order"]
    assert set(allowed.outcomes) == {"permuted_rows"}
    assert allowed.mask_of(0, (2, 5)).tolist() == [[True] * 5, [False] * 5]
    check = allowed.outcomes["permuted_rows"].check
    sorted_row = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]
    xla = (np.float32([[nan, 0, 1, 3, 2], [0, 1, 2, 3, 4]]), np.int32([[1, 4, 2, 0, 3], sorted_row[1]]))
    assert all(m[0].all() for m in check(xla))  # XLA on CPU's order: a permutation of the row's pairs
    swapped = (xla[0], np.int32([[1, 4, 2, 3, 0], sorted_row[1]]))  # (3, 3) and (2, 0): pairs broken
    assert not any(m[0].any() for m in check(swapped))
    duplicated = (np.float32([[nan, 0, 1, 3, 3], [0, 1, 2, 3, 4]]), xla[1])  # 2 lost, 3 twice
    assert not any(m[0].any() for m in check(duplicated))
    # the reference's order (Python's sort): [3, NaN] and then 0, 1, 2 inserted after NaN
    expected = (np.float32([[3, nan, 0, 1, 2], [0, 1, 2, 3, 4]]), np.int32([[0, 1, 4, 2, 3], sorted_row[1]]))
    result = run_case(golden_case("Sort", inputs, expected, attrs, tag="not_a_strict_weak_order"), get_backend("jax"))
    assert result.status == IMPL_DEFINED and "chose 'permuted_rows'" in result.message


# -- Scan ----------------------------------------------------------------------------------------------
SCAN_INPUTS = {"inputs": [np.float32([1e8, 1, -1e8, 1])], "inits": [np.float32(0)]}
SCAN_ATTRS = {"to_apply": {"op": "Add", "scan": "inclusive"}, "scan_dimension": 0, "is_associative": True}


def test_scan_reassociation_is_bounded_by_higham() -> None:
    # exact prefix sums [1e8, 1e8 + 1, 1, 2] of n = 2..5 values (init 0 included); u = 2^-24.
    # Bound (n - 1) u sum|x| (1 + 4u): step 1: 2 u (1e8 + 1) = 11.9; step 2: 3 u (2e8 + 1) = 35.8;
    # step 3 and the carry: 4 u (2e8 + 2) = 47.7 (so 49 is allowed there, 50 is not)
    allowed = allowed_table("Scan", SCAN_INPUTS, SCAN_ATTRS)["reassociation"]
    assert allowed.mask[0].tolist() == [False, True, True, True]  # step 0 combines 2 values: one association
    accepts = allowed.outcomes["any_association"][0]
    expected = np.float32([1e8, 1e8, 0, 1])  # in order: 1e8 + 1 rounds to 1e8 (spacing 8)
    assert accepts(np.float32([1e8, 1e8, 35, 2]), expected)[1:].tolist() == [True, True, True]
    assert accepts(np.float32([1e8, 1e8 + 16, 37, 50]), expected)[1:].tolist() == [False, False, False]
    carry = allowed.outcomes["any_association"][1]  # the final carry: 5 values, bound 47.7 around 2
    assert carry(np.float32(49), np.float32(1)) and not carry(np.float32(50), np.float32(1))
    case = golden_case("Scan", SCAN_INPUTS, (expected, np.float32(1)), SCAN_ATTRS, tag="reassociation")
    assert run_case(case, get_backend("jax")).status == PASSED
    tree = run_case(case, mutant_backend("scan_associative_tree"))  # (1e8 + 1) + (-1e8 + 1) = 1e8 - 1e8 = 0 at step 3
    assert tree.status == IMPL_DEFINED and "chose 'any_association'" in tree.message
    assert run_case(case, mutant_backend("scan_associative_tree"), profile="xla").status == FAILED


def test_scan_without_the_associative_flag_runs_in_order() -> None:
    assert allowed_table("Scan", SCAN_INPUTS, {**SCAN_ATTRS, "is_associative": None}) == {}


# -- ApproxTopK ---------------------------------------------------------------------------------
def _comparator(direction: str, types: tuple[PrimitiveType, ...]) -> object:
    c = XlaBuilder("cmp")
    params = [ops.Parameter(c, i, Shape.scalar_shape(t), f"p{i}") for i, t in enumerate(x for t in types for x in (t, t))]
    (ops.Gt if direction == "GT" else ops.Lt)(params[0], params[1])
    return c.build()


def _top_k(backend: str, values: np.ndarray, k: int, *, function=None, direction="GT", dim=-1, **kw) -> list:
    dim = dim % values.ndim
    b = XlaBuilder("approx")
    x = ops.Parameter(b, 0, Shape.array_shape(F32, values.shape), "x")
    idx = ops.Iota(b, Shape.array_shape(S32, values.shape), dim)
    inits = [ops.Constant(b, np.float32(-np.inf if direction == "GT" else np.inf)), ops.Constant(b, np.int32(-1))]
    (function or ops.ApproxTopK)(b, [x, idx], inits, k, dim, _comparator(direction, (F32, S32)), **kw)
    return get_backend(backend).execute(b.build(), [values])


# -- ApproxTopKReductionOutputSize -----------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    ((100, 2, 10, 0.9), (10, -1)),            # aggregate_to_topk (default): (top_k, -1)
    ((100, 2, 10, 0.9, False), (100, 0)),     # 100 <= the tiling 128: no reduction
    ((129, 2, 10, 0.9, False), (129, 0)),     # M = max(floor(9 / 0.10536) = 85, 128) = 128; floor(log2(129 // 128)) = 0
    # M = 128, log2(4096 // 128 = 32) = 5 (at most ceil(log2(4096 // 128)) = 5); ceil(32 / 2^5) * 128 = 128
    ((4096, 2, 10, 0.9, False), (128, 5)),
    ((4096, 2, 1, 0.5, False), (128, 5)),     # top_k = 1: t bins, ceil(log2(ceil(4096 / 128))) = 5
    ((4096, 2, 10, 1.0, False), (4096, 0)),   # recall 1: no reduction
    ((4096, 1, 10, 0.9, False), (1024, 2)),   # rank 1: tiling 1024; log2(4096 // 1024) = 2; ceil(4 / 4) * 1024
    # M = floor(63 / 0.051293) = 1228; log2(10000 // 1228 = 8) = 3; ceil(ceil(10000 / 128) = 79 / 8) = 10 -> 1280
    ((10000, 2, 64, 0.95, False), (1280, 3)),
    # override 6550786: M = min(floor(3903 / 0.0100503) = 388345, 6550786); log2(6550786 // 388345 = 16) = 4,
    # at most ceil(log2(2649 // 128 = 20)) = 5; ceil(ceil(2649 / 128) = 21 / 16) = 2 -> 256
    ((2649, 3, 3904, 0.99, False, 6550786), (256, 4)),
])
def test_reduction_output_size_hand_worked(args, expected):
    assert ops.ApproxTopKReductionOutputSize(*args) == expected
    assert ApproxTopKReductionOutputSize(*args) == expected


def test_reduction_output_size_agrees_with_xla_on_a_grid():
    jax_lib = pytest.importorskip("jax._src.lib")
    rng = np.random.default_rng(1)
    for _ in range(400):
        n = int(rng.choice([rng.integers(1, 5000), rng.integers(1, 1 << 22)]))
        k = int(rng.choice([1, 2, 10, 64, rng.integers(1, 5000)]))
        recall = float(np.float32(rng.choice([0.5, 0.9, 0.95, 0.99, 1.0, rng.random()])))
        override = int(rng.choice([-1, n, rng.integers(n, 1 << 24)]))
        args = (n, int(rng.integers(1, 4)), k, recall, False, override)
        assert ApproxTopKReductionOutputSize(*args) == tuple(jax_lib._jax.approx_top_k_reduction_output_size(*args))


@pytest.mark.parametrize("args, constraint", [
    ((4096, 2, 10, 1.5, False), "C8"), ((4096, 2, 10, 0.0, False), "C8"),
    ((4096, 2, 10, 0.9, False, 100), "C9"),
    ((-1, 2, 10, 0.9, False), "arg-type"), ((4096, 0, 10, 0.9, False), "arg-type"),
    ((4096, 2, 0, 0.9, False), "arg-type"), ((4096, 2, 10, float("nan"), False), "arg-type"),
    (("4096", 2, 10, 0.9), "arg-type"),
])
def test_reduction_output_size_errors(args, constraint):
    with pytest.raises(OpError) as e:
        ops.ApproxTopKReductionOutputSize(*args)
    assert e.value.constraint == constraint


# -- ApproxTopK and its fallback ---------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("function", [ops.ApproxTopK, ops.ApproxTopKFallback])
def test_long_rows_not_aggregated(backend, function):
    # rows of 4096 (rank 2): ReductionOutputSize gives 128 slots; the exact result (the reference, XLA's
    # fallback, jax on CPU) is the 128 largest sorted: a permutation of 0..4095 gives 4095 down to 3968
    rng = np.random.default_rng(0)
    values = np.stack([rng.permutation(4096), rng.permutation(4096)]).astype(np.float32)
    top, index = _top_k(backend, values, 10, function=function, aggregate_to_topk=False)
    assert top.shape == index.shape == (2, 128)
    np.testing.assert_array_equal(top, np.broadcast_to(np.arange(4095, 3967, -1, dtype=np.float32), (2, 128)))
    np.testing.assert_array_equal(np.take_along_axis(values, index, axis=1), top)


@pytest.mark.parametrize("backend", BACKENDS)
def test_min_k_along_dimension_zero_with_keywords(backend):
    values = np.array([[4, 0], [1, -1], [3, 5], [2, -2]], np.float32)
    top, index = _top_k(backend, values, 2, direction="LT", dim=0, recall_target=0.99)
    np.testing.assert_array_equal(top, [[1, -2], [2, -1]])
    np.testing.assert_array_equal(index, [[1, 3], [3, 1]])


def test_xla_client_keywords_and_errors():
    b = XlaBuilder("kw")
    x = ops.Parameter(b, 0, Shape.array_shape(F32, (5,)), "x")
    out = ops.ApproxTopK(builder=b, operands=[x], init_values=[ops.Constant(b, np.float32(0))], top_k=2,
                         reduction_dim=0, comparator=_comparator("GT", (F32,)), recall_target=0.5,
                         aggregate_to_topk=True, reduction_input_size_override=-1)
    assert b.get_shape(out) == Shape.tuple_shape([Shape.array_shape(F32, (2,))])
    with pytest.raises(OpError) as e:
        ops.ApproxTopK(b, [x], [ops.Constant(b, np.float32(0))], 2, 0, _comparator("GT", (F32,)), "high")
    assert e.value.constraint in ("C8", "arg-type")


class _Ctx:
    """A minimal evaluation context for the outcome functions: attributes, result shape, and the comparator
    of these tests (greater-than on operand 0) applied to the broadcast pairs of a row."""

    def __init__(self, attrs: dict, shape: Shape) -> None:
        self.attrs, self.shape = attrs, shape

    def attr(self, name: str):
        return self.attrs[name]

    def call(self, comp, args):
        return np.asarray(args[0]) > np.asarray(args[1])


def _verdict(op: str, values: np.ndarray, result: tuple, aggregate: bool = True) -> bool:
    n = values.shape[-1]
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), values.shape)
    size = result[0].shape[-1]
    shape = Shape.tuple_shape([Shape.array_shape(F32, values.shape[:-1] + (size,)),
                               Shape.array_shape(S32, values.shape[:-1] + (size,))])
    ctx = _Ctx({"reduction_dim": values.ndim - 1, "aggregate_to_topk": aggregate, "comparator": None,
                "dimension": -1}, shape)
    allowed = IMPLEMENTATION_DEFINED.get(op)(ctx, [values, iota], [np.float32(-np.inf), np.int32(-1)])
    (entry,) = allowed.values()
    (outcome,) = entry.outcomes.values()
    assert isinstance(outcome, Holds)
    return all(np.all(m) for m in outcome.check(result))


def test_approximate_outcome_set_accepts_tpu_like_results_and_rejects_others():
    values = np.array([[1, 9, 3, 7, 5, 2]], np.float32)
    f, i = np.float32, np.int32
    # a TPU-like result: the best (9) kept, 7 lost to a bin collision, 5 and 3 in order
    assert _verdict("ApproxTopK", values, (np.array([[9, 5, 3]], f), np.array([[1, 4, 2]], i)))
    # the init values fill a bin of padding
    assert _verdict("ApproxTopK", values, (np.array([[9, 7, -np.inf]], f), np.array([[1, 3, -1]], i)))
    # rejected: the best missing; out of order; a value paired with another's index; one position twice
    assert not _verdict("ApproxTopK", values, (np.array([[7, 5, 3]], f), np.array([[3, 4, 2]], i)))
    assert not _verdict("ApproxTopK", values, (np.array([[9, 3, 5]], f), np.array([[1, 2, 4]], i)))
    assert not _verdict("ApproxTopK", values, (np.array([[9, 7, 5]], f), np.array([[1, 4, 3]], i)))
    assert not _verdict("ApproxTopK", values, (np.array([[9, 9, 7]], f), np.array([[1, 1, 3]], i)))
    # not aggregated: any order, the best among the slots
    assert _verdict("ApproxTopK", values, (np.array([[3, 9]], f), np.array([[2, 1]], i)), aggregate=False)


def test_fallback_outcome_set_allows_only_other_orders_of_ties():
    values = np.array([[5, 3, 5, 5]], np.float32)
    f, i = np.float32, np.int32
    assert _verdict("ApproxTopKFallback", values, (np.array([[5, 5]], f), np.array([[0, 2]], i)))
    assert _verdict("ApproxTopKFallback", values, (np.array([[5, 5]], f), np.array([[3, 0]], i)))  # tie cut by the slice
    assert not _verdict("ApproxTopKFallback", values, (np.array([[5, 3]], f), np.array([[0, 1]], i)))
    assert not _verdict("ApproxTopKFallback", values, (np.array([[5, 5]], f), np.array([[0, 0]], i)))


def _answers(values: list[float], indices: list[int]) -> FunctionBackend:
    return FunctionBackend("top_k_answers", lambda operand: (np.float32(values), np.int32(indices)))


# [1, nan, 3, -nan, 0, -0, 0, -0], k = 8: XLA's total order (by hand, and jax.lax.top_k on the CPU)
TOP_K_ROW = np.float32([1, np.nan, 3, -np.nan, 0.0, -0.0, 0.0, -0.0])
TOP_K_TOTAL = ([np.nan, 3, 1, 0, 0, -0.0, -0.0, -np.nan], [1, 2, 0, 4, 6, 5, 7, 3])


def test_top_k_nan_and_signed_zero_order_is_a_closed_set() -> None:
    case = golden_case("TopK", {"operand": TOP_K_ROW}, tuple(np.asarray(v, t) for v, t in
                                                           zip(TOP_K_TOTAL, (np.float32, np.int32))), attrs={"k": 8})
    assert run_case(case, _answers(*TOP_K_TOTAL)).status == PASSED
    # NaNs after the numbers and +-0 tied (index order): allowed under spec, not under xla
    nan_last = _answers([3, 1, 0, -0.0, 0, -0.0, np.nan, np.nan], [2, 0, 4, 5, 6, 7, 1, 3])
    assert run_case(case, nan_last).status == IMPL_DEFINED
    assert run_case(case, nan_last, profile="xla").status == FAILED
    # the NaNs out of index order, or equal -0s out of index order (IREE's chlo.top_k: 7 before 5): no outcome
    assert run_case(case, _answers([3, 1, 0, -0.0, 0, -0.0, np.nan, np.nan],
                                        [2, 0, 4, 5, 6, 7, 3, 1])).status == FAILED
    assert run_case(case, _answers([np.nan, 3, 1, 0, 0, -0.0, -0.0, np.nan],
                                        [1, 2, 0, 4, 6, 7, 5, 3])).status == FAILED
    # a row with neither NaN nor zeros of both signs has one order: the documents'
    plain = golden_case("TopK", {"operand": np.float32([2, 0.0, 5])}, (np.float32([5, 2]), np.int32([2, 0])),
                        attrs={"k": 2})
    assert run_case(plain, _answers([5, 0.0], [2, 1])).status == FAILED
