"""Control flow: While, Conditional (both forms), Call's and CompositeCall's forms, deep nesting.

Expected values are worked out by hand; the conformance suite runs the specs' cases.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import specs
from backend import Shape, XlaBuilder, get_backend, ops
from backend.errors import OpError, SpecError, UnsupportedError
from backend.runtime.walker import MAX_NESTED_CALLS

BACKENDS = ["reference", "jax"]
S32 = Shape.array_shape(np.int32, ())
F32_3 = Shape.array_shape(np.float32, (3,))


def _unary(name: str, shape: Shape, fn) -> object:
    b = XlaBuilder(name)
    fn(b, ops.Parameter(b, 0, shape, "x"))
    return b.build()


def _lt_const(n: int):
    return _unary("lt", S32, lambda b, x: ops.Lt(x, ops.Constant(b, np.int32(n))))


def _plus_const(k: int):
    return _unary("inc", S32, lambda b, x: ops.Add(x, ops.Constant(b, np.int32(k))))


def _call_chain(depth: int):
    """c0(x) = x; ck(x) = c(k-1)(x + 1): the outermost of ``depth`` computations returns x + depth - 1."""
    comp = _unary("c0", F32_3, lambda b, x: ops.Neg(ops.Neg(x)))
    for k in range(1, depth):
        comp = _unary(f"c{k}", F32_3, lambda b, x, callee=comp: ops.Call(callee, [ops.Add(x, ops.Constant(
            b, np.float32(1)))]))
    return comp


@pytest.mark.parametrize("backend", BACKENDS)
def test_chain_of_1000_nested_calls_builds_prints_and_runs(backend):
    comp = _call_chain(1000)
    text = comp.as_hlo_text()
    assert text.count(" call(") == 999 and "c0 {" in text and "ENTRY c999 {" in text
    assert len(comp.subcomputations()) == 999
    start = time.perf_counter()
    out = get_backend(backend).execute(comp, [np.array([0, 1.5, -2], np.float32)])
    assert time.perf_counter() - start < 30
    np.testing.assert_array_equal(out[0], np.array([999, 1000.5, 997], np.float32))


def test_subcomputations_are_callees_first_each_once():
    leaf = _plus_const(1)
    mid = _unary("mid", S32, lambda b, x: ops.Call(leaf, [ops.Call(leaf, [x])]))
    top = _unary("top", S32, lambda b, x: ops.Add(ops.Call(mid, [x]), ops.Call(leaf, [x])))
    assert [c.name for c in top.subcomputations()] == ["inc", "mid"]


def _nested_conditionals(levels: int):
    """Each level is Conditional(true, x, <the level below>, x, leaf): ``levels`` nested branches, x + x at
    the bottom."""
    leaf = _unary("leaf", F32_3, lambda b, x: ops.Add(x, x))
    comp = leaf
    for k in range(levels):
        comp = _unary(f"level{k}", F32_3, lambda b, x, inner=comp: ops.Conditional(
            ops.Constant(b, np.bool_(True)), x, inner, x, leaf))
    return comp


@pytest.mark.parametrize("backend", BACKENDS)
def test_branches_nest_to_the_limit(backend):
    out = get_backend(backend).execute(_nested_conditionals(MAX_NESTED_CALLS), [np.array([1, 2, 3], np.float32)])
    np.testing.assert_array_equal(out[0], np.array([2, 4, 6], np.float32))


def test_branches_nested_past_the_limit_are_a_clear_error_on_jax():
    # the reference runs branches on its frame stack (no limit); jax traces lax.cond recursively
    comp = _nested_conditionals(MAX_NESTED_CALLS + 1)
    out = get_backend("reference").execute(comp, [np.array([1, 2, 3], np.float32)])
    np.testing.assert_array_equal(out[0], np.array([2, 4, 6], np.float32))
    with pytest.raises(UnsupportedError, match=f"nest deeper than {MAX_NESTED_CALLS} levels"):
        get_backend("jax").execute(comp, [np.array([1, 2, 3], np.float32)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_in_xla_client_form_counts(backend):
    b = XlaBuilder("loop")
    ops.While(_lt_const(10), _plus_const(3), ops.Parameter(b, 0, S32, "x"))  # 1, 4, 7, 10
    out = get_backend(backend).execute(b.build(), [np.int32(1)])
    assert out[0] == 10 and out[0].dtype == np.int32


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_body_calling_a_chain_and_a_conditional(backend):
    # body(x) = Conditional(x < 5, x, chain(+1 three times), x, +100): from 0: 3, 6 (3 < 5), then 6 >= 5: 106
    inc = _plus_const(1)
    chain = inc
    for _ in range(2):
        chain = _unary("chain", S32, lambda b, x, c=chain: ops.Call(c, [ops.Add(x, ops.Constant(b, np.int32(1)))]))
    body = _unary("body", S32, lambda b, x: ops.Conditional(ops.Lt(x, ops.Constant(b, np.int32(5))), x, chain, x,
                                                            _plus_const(100)))
    b = XlaBuilder("loop")
    ops.While(_lt_const(100), body, ops.Parameter(b, 0, S32, "x"))
    assert get_backend(backend).execute(b.build(), [np.int32(0)])[0] == 106


@pytest.mark.parametrize("backend", BACKENDS)
def test_conditional_forms_positional_and_by_name(backend):
    double, negate = _unary("double", S32, lambda b, x: ops.Add(x, x)), _unary("neg", S32, lambda b, x: ops.Neg(x))
    for index, expected in [(0, 14), (1, -7), (2, -7), (-5, -7)]:
        b = XlaBuilder("by_index")
        i, x = ops.Parameter(b, 0, S32, "i"), ops.Parameter(b, 1, S32, "x")
        ops.Conditional(i, [double, negate], [x, x])
        assert get_backend(backend).execute(b.build(), [np.int32(index), np.int32(7)])[0] == expected
    for pred, expected in [(True, 14), (False, -3)]:
        b = XlaBuilder("by_predicate")
        p = ops.Parameter(b, 0, Shape.array_shape(np.bool_, ()), "p")
        x, y = ops.Parameter(b, 1, S32, "x"), ops.Parameter(b, 2, S32, "y")
        ops.Conditional(predicate=p, true_operand=x, true_computation=double, false_operand=y,
                        false_computation=negate)
        assert get_backend(backend).execute(b.build(), [np.bool_(pred), np.int32(7), np.int32(3)])[0] == expected


def test_conditional_arguments_fitting_no_form_name_both_forms():
    b = XlaBuilder("bad")
    x = ops.Parameter(b, 0, S32, "x")
    with pytest.raises(OpError, match=r"Conditional\(predicate, true_operand.*Conditional\(branch_index"):
        ops.Conditional(x, x)
    with pytest.raises(OpError, match="fit none"):
        ops.Conditional(branch_index=x, true_operand=x, branch_computations=[], branch_operands=[])


def test_conditional_constraint_errors_name_the_argument():
    b = XlaBuilder("bad")
    i, x = ops.Parameter(b, 0, S32, "i"), ops.Parameter(b, 1, F32_3, "x")
    with pytest.raises(OpError, match=r"C2.*branch_computations\[1\]") as info:
        ops.Conditional(i, [_unary("id", F32_3, lambda b, v: v), _plus_const(1)], [x, x])
    assert info.value.op == "Conditional"
    with pytest.raises(OpError, match="C4"):
        ops.Conditional(i, [_plus_const(1)], [])
    with pytest.raises(OpError, match="arg-type"):
        ops.Conditional(i, ["not a computation"], [x])


def test_while_constraint_errors():
    b = XlaBuilder("bad")
    x = ops.Parameter(b, 0, S32, "x")
    with pytest.raises(OpError, match="C2.*pred"):
        ops.While(_plus_const(1), _plus_const(1), x)
    with pytest.raises(OpError, match="C1"):
        ops.While(_lt_const(1), _plus_const(1), ops.Parameter(b, 1, F32_3, "y"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_call_and_composite_call_take_the_builder_first_form(backend):
    const = XlaBuilder("const")
    ops.Constant(const, np.array([5, -6], np.int32))
    const = const.build()
    b = XlaBuilder("calls")
    ops.Tuple(b, [ops.Call(b, const, []), ops.CompositeCall(b, const, [], "my.const", None, 3)])
    out = get_backend(backend).execute(b.build(), [])
    np.testing.assert_array_equal(out[0], [5, -6])
    np.testing.assert_array_equal(out[1], [5, -6])
    text = b.build().as_hlo_text()
    assert "composite-call()" in text and "name=my.const" in text and "version=3" in text


CALL_SPEC = """\
op: Call
family: control_flow
summary: test copy of Call.
signatures: ["Call(computation, operands...)", "Call(builder, computation, operands)"]
forms: FORMS
args:
  builder: {kind: builder}
  computation: {kind: computation}
  operands: {kind: operands}
constraints:
  C1: count.
examples:
  - {name: one, inputs: {operands: [{"f32[]": 1}]}, attrs: {computation: {op: Neg, params: operands}},
     expected: {"f32[]": -1}}
errors:
  - {violates: C1, inputs: {operands: ["f32[]"]}, attrs: {computation: {op: Add, params: ["f32[]", "f32[]"]}}}
tolerance: exact
"""


@pytest.mark.parametrize("forms, message", [
    ("{a: [computation, operands], b: [builder, computation, operands, nope]}", r"\['nope'\] are not arguments"),
    ("{a: [computation, operands], b: [computation]}", r"\['builder'\] belong to no form"),
    ("{a: [computation, operands]}", "at least two"),
    ("{a: [computation, operands], b: []}", "non-empty list"),
])
def test_loader_checks_call_forms(tmp_path, forms, message):
    path = tmp_path / "call.yaml"
    path.write_text(CALL_SPEC.replace("FORMS", forms))
    with pytest.raises(SpecError, match=message):
        specs.load_file(path)


def test_loader_rejects_an_example_spanning_two_forms(tmp_path):
    path = tmp_path / "call.yaml"
    path.write_text(CALL_SPEC.replace("FORMS", "{a: [computation], b: [builder, operands]}"))
    with pytest.raises(SpecError, match="not those of one call form"):
        specs.load_file(path)


_F32 = Shape.array_shape(np.dtype("float32"), ())
_S32 = Shape.array_shape(np.dtype("int32"), ())


def _scalar_fn(name, build):
    b = XlaBuilder(name)
    build(b, ops.Parameter(b, 0, _F32, "x"))
    return b.build()


def _times_ten():
    return _scalar_fn("times_ten", lambda b, x: ops.Mul(x, ops.Constant(b, np.float32(10))))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("predicate", "expected"), [(True, 20.0), (False, 30.0)])
def test_conditional_with_one_computation_for_both_branches_takes_the_chosen_operand(backend, predicate, expected):
    """Conditional(p, 2, C, 3, C) with C(x) = 10x: C(2) = 20 when p, C(3) = 30 otherwise (jax runs C once, on the
    operand chosen first)."""
    b = XlaBuilder("same_branches")
    p = ops.Parameter(b, 0, Shape.array_shape(np.dtype("bool"), ()), "p")
    c = _times_ten()
    ops.Conditional(p, ops.Constant(b, np.float32(2)), c, ops.Constant(b, np.float32(3)), c)
    assert get_backend(backend).execute(b.build(), [np.bool_(predicate)])[0] == np.float32(expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("index", "expected"), [(0, 10.0), (1, -2.0), (2, 30.0), (7, 30.0), (-1, 30.0)])
def test_switch_with_a_repeated_branch_computation(backend, index, expected):
    """Branches [C, Neg, C] over operands (1, 2, 3), C(x) = 10x: index 0 -> 10, 1 -> -2, 2 -> 30; out of range runs
    the last branch: 30."""
    b = XlaBuilder("switch")
    i = ops.Parameter(b, 0, _S32, "i")
    c, neg = _times_ten(), _scalar_fn("neg", lambda b, x: ops.Neg(x))
    ops.Conditional(i, [c, neg, c], [ops.Constant(b, np.float32(v)) for v in (1, 2, 3)])
    assert get_backend(backend).execute(b.build(), [np.int32(index)])[0] == np.float32(expected)


def _nested_same_branch_conditionals(depth):
    """depth levels of Conditional(x > 0, x, inner, x, inner), around 2x: the same branch twice at every level."""
    comp = _scalar_fn("leaf", lambda b, x: ops.Add(x, x))
    for k in range(depth):
        inner = comp
        comp = _scalar_fn(f"level{k}", lambda b, x, inner=inner: ops.Conditional(
            ops.Gt(x, ops.Constant(b, np.float32(0))), x, inner, x, inner))
    return comp


@pytest.mark.parametrize("backend", BACKENDS)
def test_conditionals_sharing_a_branch_nested_32_deep_run_in_bounded_time(backend):
    """32 levels ended in a MemoryError on jax (XLA copied the branch into both arms at every level: 2^32 copies);
    now each level runs its one computation once. 2 * 1.5 = 3 and 2 * -1 = -2."""
    start = time.monotonic()
    computation = _nested_same_branch_conditionals(32)
    out = [get_backend(backend).execute(computation, [np.float32(x)])[0] for x in (1.5, -1)]
    assert [float(v) for v in out] == [3.0, -2.0]
    assert time.monotonic() - start < 60


def _nested_shared_whiles(depth):
    """depth levels whose body runs two Whiles sharing the level below's condition and body (each runs once)."""
    state = Shape.tuple_shape([_S32, _F32])
    c = XlaBuilder("once")
    p = ops.Parameter(c, 0, state, "p")
    ops.Lt(ops.GetTupleElement(p, 0), ops.Constant(c, np.int32(1)))
    condition = c.build()
    b = XlaBuilder("leaf")
    p = ops.Parameter(b, 0, state, "p")
    ops.Tuple(b, [ops.Add(ops.GetTupleElement(p, 0), ops.Constant(b, np.int32(1))),
                  ops.Mul(ops.GetTupleElement(p, 1), ops.Constant(b, np.float32(2)))])
    body = b.build()
    for k in range(depth):
        b = XlaBuilder(f"level{k}")
        p = ops.Parameter(b, 0, state, "p")
        first = ops.While(condition, body, ops.Tuple(b, [ops.Constant(b, np.int32(0)), ops.GetTupleElement(p, 1)]))
        second = ops.While(condition, body, ops.Tuple(b, [ops.Constant(b, np.int32(0)),
                                                          ops.GetTupleElement(first, 1)]))
        ops.Tuple(b, [ops.Add(ops.GetTupleElement(p, 0), ops.Constant(b, np.int32(1))), ops.GetTupleElement(second, 1)])
        body = b.build()
    m = XlaBuilder("main")
    ops.While(condition, body, ops.Tuple(m, [ops.Constant(m, np.int32(0)), ops.Parameter(m, 0, _F32, "x")]))
    return m.build()


def test_whiles_sharing_a_body_nested_18_deep_are_refused_up_front_on_jax():
    """XLA copies a body into every While that runs it: 18 levels of two Whiles sharing one took 230 s to compile.
    supports() now counts the copies (7,864,306 instructions) and refuses at once. 3 levels still run: the main
    While runs level 2 once, each level runs the one below twice, so the leaf doubles x 2^3 = 8 times:
    1.5 * 2^8 = 384."""
    start = time.monotonic()
    reason = get_backend("jax").supports(_nested_shared_whiles(18))
    assert reason is not None and "7,864,306 instructions once XLA copies each sub-computation" in reason
    assert time.monotonic() - start < 10
    with pytest.raises(UnsupportedError, match="instructions once XLA copies"):
        get_backend("jax").execute(_nested_shared_whiles(18), [np.float32(1.5)])
    for backend in BACKENDS:
        out = get_backend(backend).execute(_nested_shared_whiles(3), [np.float32(1.5)])
        assert float(out[1]) == 1.5 * 2**8
