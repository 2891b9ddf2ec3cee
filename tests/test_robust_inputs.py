"""Malformed inputs anywhere give an OpError naming the op and the argument, never a raw exception.

For every spec and every attribute (and sub-computation) argument, a battery of malformed values
replaces the value of the spec's first golden example; building must either succeed (the value
happens to be valid) or raise OpError. The same for ``execute`` on every built-in backend.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import specs
from backend import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    OpError,
    Precision,
    PrecisionConfig,
    PrimitiveType,
    ResultAccuracy,
    ResultAccuracyMode,
    ScatterDimensionNumbers,
    Shape,
    UnsupportedError,
    XlaBuilder,
    get_backend,
    ops,
)
from conformance.build import build_case
from tests.support.computations import binary_computation

JUNK = [None, "x", "", 1.5, -1, 0, 7, 10**30, True, float("nan"), float("inf"), [], [[]], [None], ["x"], [1.5],
        [-1], [0, 0], [99], [[0, 1], [1]], [[1, 2, 3]], (1, "a"), {"bogus": 1}, {}, object(), b"bytes",
        np.float32(2.5), np.array([1, 2]), np.array([[0, 1]]), [[[0]]], {"mode": "bogus"}, {"atol": "x"},
        {"mode": None}, {"atol": float("nan")}, {"atol": -1.0}, {"ulps": 1.5}, ["HIGHEST"], ["BOGUS", "HIGH"],
        ("NHWC", "HWIO"), ("NHWC", "HWIO", "NHWC"), ("NCW", "OIW", "NCW"), ("ABC", "DEF", "GHI"),
        "f32", "bogus_type", np.float64, 99999, PrimitiveType.TUPLE, PrimitiveType.TOKEN, Precision.HIGH,
        ResultAccuracyMode.HIGHEST]


def _record_junk(cls: type) -> list[object]:
    """Instances of a dimension-numbers class with one field set to junk each."""
    out = []
    fields = dataclasses.fields(cls)
    base = {f.name: (0 if f.type in ("int", int) else ()) for f in fields}
    for f in fields:
        for bad in (None, "x", 1.5, [1.5], [None], -1, [-1], [0, 0], [99], 99, [[0]], object()):
            out.append(cls(**{**base, f.name: bad}))
    return out


RECORD_JUNK = (_record_junk(DotDimensionNumbers) + _record_junk(ConvolutionDimensionNumbers)
               + _record_junk(GatherDimensionNumbers) + _record_junk(ScatterDimensionNumbers)
               + [PrecisionConfig(None), PrecisionConfig(("HIGH",)), PrecisionConfig((Precision.HIGH,) * 5),
                  PrecisionConfig(5), ResultAccuracy("bogus"), ResultAccuracy(ResultAccuracyMode.TOLERANCE, math.nan),
                  ResultAccuracy(ResultAccuracyMode.TOLERANCE, -1.0), ResultAccuracy(ResultAccuracyMode.TOLERANCE,
                                                                                     0.0, "x"),
                  ResultAccuracy(ResultAccuracyMode.TOLERANCE, 0.0, 0.0, 1.5), ResultAccuracy(None)])

BASES = [(spec, spec.examples[0]) for spec in specs.load_all().values() if spec.examples]


def _example_of_form(spec, arg_name):
    """The first example written in a call form that has ``arg_name`` (ops such as Conditional have several)."""
    for ex in spec.examples:
        if arg_name in spec.form_args({*ex.inputs, *ex.attrs}):
            return ex
    return None


ATTRIBUTE_CASES = [(spec, ex, a.name) for spec, _ in BASES for a in spec.args if a.kind in ("attribute", "computation")
                   and (ex := _example_of_form(spec, a.name)) is not None]


def _problem(spec, inputs, attrs, arg_name, value) -> str | None:
    """None when building succeeds or raises a well-formed OpError, else what went wrong."""
    try:
        build_case(spec, inputs, {**attrs, arg_name: value})
    except OpError as e:
        if e.op == "XlaBuilder" and e.constraint == "build":  # XlaBuilder.build()'s own check (parameter numbers)
            return None
        if e.op != spec.name or not e.constraint or e.constraint == "internal" or e.arg is None:
            return f"{spec.name}({arg_name}={value!r}): OpError without op/constraint/argument: {e}"
    except Exception as e:  # noqa: BLE001 - the point of the test
        return f"{spec.name}({arg_name}={value!r}) raised {type(e).__name__}: {e}"
    return None


@pytest.mark.parametrize(("spec", "example", "arg_name"), ATTRIBUTE_CASES,
                         ids=[f"{s.name}-{a}" for s, _, a in ATTRIBUTE_CASES])
def test_malformed_attribute_is_an_op_error(spec, example, arg_name):
    arg = spec.arg(arg_name)
    values = JUNK + RECORD_JUNK
    if arg.kind == "computation" or arg.type == "computation":
        values = [v for v in values if not isinstance(v, dict)]  # build_case reads dicts as sub-computation specs
    problems = [p for v in values if (p := _problem(spec, example.inputs, example.attrs, arg_name, v))]
    assert not problems, "\n".join(problems)


def _add_computation():
    return binary_computation(ops.Add, Shape.array_shape(PrimitiveType.F32, [2]), "add")  # the op of the errors: "add"


BACKENDS = ["reference", "jax", "pallas"]
GOOD_ARGS = [np.array([1, 2], np.float32), np.array([3, 4], np.float32)]


@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("computation", [None, "add", 3, object(), [], {"op": "Add"}])
def test_execute_needs_a_computation(backend_name, computation):
    backend = get_backend(backend_name)
    with pytest.raises(OpError, match="expected an XlaComputation") as e:
        backend.execute(computation, GOOD_ARGS)
    assert e.value.arg == "computation"
    with pytest.raises(OpError):
        backend.supports(computation)


BAD_ARGUMENTS = [None, 3, "ab", b"ab", {"a": 1}, np.array([1, 2], np.float32), [None, None], [object(), object()],
                 [[1, [2]], [3, 4]], [np.array([1, 2], np.float64), GOOD_ARGS[1]], GOOD_ARGS[:1], GOOD_ARGS * 2,
                 [np.array([1, 2, 3], np.float32), GOOD_ARGS[1]], [np.array(["a", "b"]), GOOD_ARGS[1]],
                 iter(GOOD_ARGS)]


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_execute_rejects_malformed_arguments(backend_name):
    backend, computation = get_backend(backend_name), _add_computation()
    for arguments in BAD_ARGUMENTS:
        with pytest.raises(OpError) as e:
            backend.execute(computation, arguments)
        assert e.value.op == "add" and e.value.constraint == "arguments" and e.value.arg == "arguments"


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_execute_rejects_bad_replicas(backend_name):
    backend, computation = get_backend(backend_name), _add_computation()
    for replicas in (0, -1, "2", 1.5, None, True, [1]):
        with pytest.raises(OpError, match="replicas must be an integer >= 1") as e:
            backend.execute(computation, GOOD_ARGS, replicas=replicas)
        assert e.value.arg == "replicas"
    assert backend.execute(computation, tuple(GOOD_ARGS), replicas=np.int64(1))[0].tolist() == [4.0, 6.0]


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_execute_accepts_array_likes(backend_name):
    backend, computation = get_backend(backend_name), _add_computation()
    out = backend.execute(computation, (np.array([1, 2], np.float32), np.asarray([0.5, 0.5], np.float32)))
    assert out[0].dtype == np.float32 and out[0].tolist() == [1.5, 2.5]


OPERAND_JUNK = [None, 1, 2.5, "x", [None], [1, 2], np.array([1.0]), object(), XlaBuilder("other")]
OPERAND_CASES = [(spec, ex, a.name) for spec, _ in BASES for a in spec.args if a.kind in ("operand", "operands")
                 and (ex := _example_of_form(spec, a.name)) is not None]


@pytest.mark.parametrize(("spec", "example", "arg_name"), OPERAND_CASES,
                         ids=[f"{s.name}-{a}" for s, _, a in OPERAND_CASES])
def test_malformed_operand_is_an_op_error(spec, example, arg_name):
    values = OPERAND_JUNK + ([[]] if spec.arg(arg_name).kind == "operands" else [])
    form = spec.form_args({*example.inputs, *example.attrs})
    kwargs = {a.name: None for a in spec.args if a.kind in ("operand", "operands") and a.name in form}
    problems = []
    for value in values:
        try:
            b = XlaBuilder("junk")
            args = {name: ops.Constant(b, np.float32(1)) if name != arg_name else value for name in kwargs}
            if spec.arg(arg_name).kind == "operands" or any(spec.arg(n).kind == "operands" for n in kwargs):
                args = {n: (v if n == arg_name or spec.arg(n).kind == "operand" else [v]) for n, v in args.items()}
            builder_args = {a.name: b for a in spec.args if a.kind == "builder" and a.name in form}
            getattr(ops, spec.name)(**builder_args, **args, **example.attrs)
        except OpError as e:
            if e.op != spec.name or e.arg is None:
                problems.append(f"{spec.name}({arg_name}={value!r}): {e}")
        except Exception as e:  # noqa: BLE001 - the point of the test
            problems.append(f"{spec.name}({arg_name}={value!r}) raised {type(e).__name__}: {e}")
    assert not problems, "\n".join(problems)


def _cbrt(etype, builder_name="cbrt"):
    b = XlaBuilder(builder_name)
    ops.Cbrt(ops.Parameter(b, 0, Shape.array_shape(etype, [2])))
    return b.build()


@pytest.mark.parametrize("backend_name", ["jax", "pallas"])
def test_jax_refuses_up_front_what_it_cannot_run(backend_name):
    backend = get_backend(backend_name)
    comp = _cbrt(PrimitiveType.C64)
    assert "complex" in backend.supports(comp)
    with pytest.raises(UnsupportedError, match="complex kernel"):
        backend.execute(comp, [np.array([8, -8], np.complex64)])
    # the same limitation inside a sub-computation
    b = XlaBuilder("call")
    ops.Call(_cbrt(PrimitiveType.C64, "inner"), [ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.C64, [2]))])
    assert "complex" in backend.supports(b.build())
    # and real operands run
    assert backend.supports(_cbrt(PrimitiveType.F32)) is None
    assert backend.execute(_cbrt(PrimitiveType.F32), [np.array([8, -27], np.float32)])[0].tolist() == [2.0, -3.0]


@pytest.mark.parametrize("op", ["Abs", "BitcastConvertType", "Cbrt"])
def test_jax_runs_whatever_it_says_it_supports(op):
    """For the ops where jax rejects some valid element types, supports() and execute() agree on
    every golden and generated case of those types: refused up front, or run without complaint."""
    from conformance.generate import generated_cases, golden_cases

    backend = get_backend("jax")
    spec = specs.get(op)
    checked = 0
    for case in golden_cases(spec) + generated_cases(spec, 0):
        comp, args = build_case(spec, case.inputs, case.attrs)
        types = {p.shape.element_type() for p in comp.parameters} | {comp.root_instruction.shape.element_type()}
        if not any(t in (PrimitiveType.S2, PrimitiveType.S4, PrimitiveType.C64, PrimitiveType.C128) for t in types):
            continue
        checked += 1
        if backend.supports(comp) is None:
            backend.execute(comp, args)  # an UnsupportedError here means supports() said yes too early
        else:
            with pytest.raises(UnsupportedError):
                backend.execute(comp, args)
    assert checked > 0


def _foreign_report(result):
    lines = [f"{len(result.foreign)} foreign exceptions in {result.calls} calls:"]
    lines += [f"  {f.op} ({f.kind}): {f.error}\n    {f.call}" for f in result.foreign[:20]]
    return "\n".join(lines)


def test_fuzzed_calls_over_every_op_raise_only_the_projects_errors():
    """600 seeded random calls (tests/support/call_fuzz.py: mutated examples, blind calls, programs run on the
    reference and jax with their own, random and malformed arguments): every exception is the project's own."""
    from tests.support.call_fuzz import fuzz_calls
    result = fuzz_calls(600, seed=0)
    assert not result.foreign, _foreign_report(result)
    assert result.calls == 600 and result.executed > 0 and len(result.ops) > 150
    assert result.outcomes["ok"] > 0 and result.outcomes["OpError"] > 0


@pytest.mark.slow
def test_fuzzed_calls_full_size():
    """The full-size run: 100,000 calls over all ops (about 10 minutes); prints its figures."""
    from tests.support.call_fuzz import fuzz_calls
    result = fuzz_calls(100_000, seed=27)
    print(f"\n{result.calls} calls over {len(result.ops)} ops in {result.seconds:.0f} s, {result.executed} executed: "
          f"{dict(result.outcomes)} by kind {dict(result.kinds)}")
    assert not result.foreign, _foreign_report(result)


@pytest.mark.parametrize("items", [None, 3, "ab", [None], [(1,)], [(1, 2, 3)], ["ab"], [object()]])
def test_execute_batch_rejects_malformed_items(items):
    """A TypeError/ValueError from unpacking before; an OpError naming the item now."""
    with pytest.raises(OpError, match="execute_batch: arguments violated") as info:
        get_backend("jax").execute_batch(items)
    assert info.value.arg == "items"


def test_execute_batch_runs_well_formed_items():
    computation = _add_computation()
    first, second = get_backend("jax").execute_batch([(computation, GOOD_ARGS), [computation, GOOD_ARGS[:1]]])
    assert first[0].tolist() == [4.0, 6.0] and isinstance(second, OpError)
