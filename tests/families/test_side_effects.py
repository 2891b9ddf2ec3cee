"""Tokens, Infeed/Outfeed, RecvFromHost/SendToHost and CustomCall: programs chaining them, the execution API
(infeed=, outfeed=, execute_with_io), the custom-call target registry, and errors (hand-computed values)."""

from __future__ import annotations

import types

import numpy as np
import pytest

import backend
from backend import (
    ExecutionError,
    OpError,
    Shape,
    UnsupportedError,
    XlaBuilder,
    execute_with_io,
    get_backend,
    ops,
    register_custom_call_target,
    unregister_custom_call_target,
)
from backend.hlo.token import TOKEN
from conformance.cases import Case
from conformance.runner import FAILED, PASSED, run_case

BACKENDS = ["reference", "jax"]
F32_2 = Shape.array_shape(np.float32, (2,))


def _f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


@pytest.mark.parametrize("name", BACKENDS)
def test_infeed_outfeed_program_in_order(name):
    """Two infeeds threaded by tokens, their sum outfed, then the first value outfed again."""
    b = XlaBuilder("io")
    t0 = ops.CreateToken(b)
    first = ops.InfeedWithToken(t0, F32_2)
    x, t1 = ops.GetTupleElement(first, 0), ops.GetTupleElement(first, 1)
    second = ops.InfeedWithToken(t1, F32_2)
    y, t2 = ops.GetTupleElement(second, 0), ops.GetTupleElement(second, 1)
    t3 = ops.OutfeedWithToken(ops.Add(x, y), t2, F32_2)
    t4 = ops.OutfeedWithToken(x, t3, F32_2)
    ops.Tuple(b, [ops.Mul(x, y), ops.AfterAll([t3, t4])])
    results, outfeed = execute_with_io(get_backend(name), b.build(), [], infeed=[_f32(1, 2), _f32(10, -3)])
    np.testing.assert_array_equal(results[0], _f32(10, -6))
    assert results[1].shape == (0,) and results[1].dtype == np.bool_
    assert len(outfeed) == 2
    np.testing.assert_array_equal(outfeed[0], _f32(11, -1))
    np.testing.assert_array_equal(outfeed[1], _f32(1, 2))


@pytest.mark.parametrize("name", BACKENDS)
def test_infeed_with_token_tuple_data_and_outfeed_of_a_tuple(name):
    b = XlaBuilder("tuple_io")
    data_shape = Shape.tuple_shape([Shape.array_shape(np.int32, (2,)), Shape.array_shape(np.bool_, ())])
    got = ops.InfeedWithToken(ops.CreateToken(b), data_shape, "cfg")
    data = ops.GetTupleElement(got, 0)
    ops.OutfeedWithToken(data, ops.GetTupleElement(got, 1), data_shape)
    outfeed: list = []
    out = get_backend(name).execute(b.build(), [], infeed=[(np.array([7, -8], np.int32), np.bool_(True))],
                                    outfeed=outfeed)
    assert out[0].shape == (0,)
    (ints, flag), = outfeed
    np.testing.assert_array_equal(ints, np.array([7, -8], np.int32))
    assert flag.dtype == np.bool_ and bool(flag) is True


@pytest.mark.parametrize("name", BACKENDS)
def test_seed_forms_infeed_and_outfeed_without_tokens(name):
    b = XlaBuilder("seed_forms")
    x = ops.Infeed(b, Shape.array_shape(np.int32, (3,)))
    ops.Outfeed(ops.Neg(x), Shape.array_shape(np.int32, (3,)), "")
    ops.Infeed(b, Shape.tuple_shape([]))  # the empty tuple shape reads nothing
    root = ops.Add(x, x)
    results, outfeed = execute_with_io(get_backend(name), b.build(root), [],
                                       infeed=[np.array([1, -2, 3], np.int32)])
    np.testing.assert_array_equal(results[0], np.array([2, -4, 6], np.int32))
    np.testing.assert_array_equal(outfeed[0], np.array([-1, 2, -3], np.int32))


@pytest.mark.parametrize("name", BACKENDS)
def test_infeed_read_each_loop_trip_is_the_seed_total_order(name):
    """The seed's example: Infeeds inside a loop body read successive values (While from main)."""
    if not hasattr(ops, "While"):
        pytest.skip("While has not landed")
    s32 = Shape.array_shape(np.int32, ())
    carry = Shape.tuple_shape([s32, s32])
    cond = XlaBuilder("cond")
    p = ops.Parameter(cond, 0, carry)
    ops.Lt(ops.GetTupleElement(p, 0), ops.Constant(cond, np.int32(3)))
    body = XlaBuilder("body")
    p = ops.Parameter(body, 0, carry)
    ops.Tuple(body, [ops.Add(ops.GetTupleElement(p, 0), ops.Constant(body, np.int32(1))),
                     ops.Add(ops.GetTupleElement(p, 1), ops.Infeed(body, s32))])
    b = XlaBuilder("loop")
    ops.While(cond.build(), body.build(), ops.Tuple(b, [ops.Constant(b, np.int32(0)), ops.Constant(b, np.int32(0))]))
    values = [np.int32(5), np.int32(-2), np.int32(100), np.int32(9)]
    results, _ = execute_with_io(get_backend(name), b.build(), [], infeed=values)
    assert int(results[0]) == 3 and int(results[1]) == 103  # 5 - 2 + 100; the fourth value is not read


@pytest.mark.parametrize("name", BACKENDS)
def test_exhausted_infeed_is_an_op_error(name):
    b = XlaBuilder("short")
    ops.Infeed(b, F32_2)
    with pytest.raises(OpError, match="reads infeed value 0, but execute\\(\\) was given 0"):
        get_backend(name).execute(b.build(), [])


@pytest.mark.parametrize("name", BACKENDS)
def test_infeed_value_of_the_wrong_shape_is_an_op_error(name):
    b = XlaBuilder("wrong")
    ops.Infeed(b, F32_2)
    with pytest.raises(OpError, match=r"infeed value 0 must be f32\[2\], got int32\[2\]"):
        get_backend(name).execute(b.build(), [], infeed=[np.array([1, 2], np.int32)])


def test_execute_rejects_malformed_infeed_and_outfeed_arguments():
    b = XlaBuilder("args")
    ops.Infeed(b, F32_2)
    backend = get_backend("reference")
    with pytest.raises(OpError, match="infeed must be a list"):
        backend.execute(b.build(), [], infeed=_f32(1, 2))
    with pytest.raises(OpError, match="outfeed must be a list"):
        backend.execute(b.build(), [], infeed=[_f32(1, 2)], outfeed=())


@pytest.mark.parametrize("name", BACKENDS)
def test_token_parameter_and_result(name):
    b = XlaBuilder("token_param")
    t = ops.Parameter(b, 0, Shape.token_shape())
    ops.AfterAll(b, [t, ops.CreateToken(b)])
    out = get_backend(name).execute(b.build(), [TOKEN])
    assert out[0].shape == (0,) and out[0].dtype == np.bool_


def test_after_all_errors():
    b = XlaBuilder("after_all")
    with pytest.raises(OpError) as e:
        ops.AfterAll(b, [])
    assert e.value.constraint == "C1" and "non-empty" in str(e.value)
    x = ops.Constant(b, _f32(1, 2))
    with pytest.raises(OpError, match=r"tokens\[1\] must be a token, got f32\[2\]") as e:
        ops.AfterAll([ops.CreateToken(b), x])
    assert e.value.constraint == "C1"


def test_outfeed_and_infeed_errors_name_the_constraint():
    b = XlaBuilder("errors")
    x = ops.Constant(b, _f32(1, 2))
    with pytest.raises(OpError) as e:
        ops.OutfeedWithToken(x, x, F32_2)
    assert (e.value.op, e.value.constraint, e.value.arg) == ("OutfeedWithToken", "C1", "token")
    with pytest.raises(OpError) as e:
        ops.Outfeed(x, Shape.array_shape(np.float32, (3,)))
    assert e.value.constraint == "C1" and "f32[3]" in str(e.value)
    with pytest.raises(OpError) as e:
        ops.Infeed(b, Shape.tuple_shape([Shape.tuple_shape([F32_2])]))
    assert e.value.constraint == "C1" and "nested" in str(e.value)
    with pytest.raises(OpError) as e:
        ops.Infeed(b, "not a shape at all")
    assert e.value.op == "Infeed"


def test_outfeed_layout_may_differ():
    b = XlaBuilder("layout")
    x = ops.Constant(b, np.arange(6, dtype=np.float32).reshape(2, 3))
    ops.Outfeed(x, Shape.array_shape(np.float32, (2, 3), layout=(0, 1)), "")
    _, outfeed = execute_with_io(get_backend("reference"), b.build(), [])
    np.testing.assert_array_equal(outfeed[0], np.arange(6, dtype=np.float32).reshape(2, 3))


# -- host transfers -------------------------------------------------------------------------
@pytest.mark.parametrize("name", BACKENDS)
def test_host_transfers_use_the_execution_infeed_and_outfeed(name):
    """RecvFromHost takes the next infeed value; SendToHost appends to the outfeed, in program order."""
    b = XlaBuilder("host")
    received = ops.RecvFromHost(ops.CreateToken(b), F32_2, types.SimpleNamespace(handle=2, type="HOST_TO_DEVICE"))
    data, token = ops.GetTupleElement(received, 0), ops.GetTupleElement(received, 1)
    token = ops.SendToHost(ops.Mul(data, data), token, F32_2, 3)
    ops.SendToHost(ops.Neg(data), token, F32_2, types.SimpleNamespace(handle=3, type=2))
    outfeed: list = []
    get_backend(name).execute(b.build(), [], infeed=[np.array([1.5, -2], np.float32)], outfeed=outfeed)
    assert [v.tolist() for v in outfeed] == [[2.25, 4], [-1.5, 2]]


def test_host_channels_must_have_their_direction():
    b = XlaBuilder("host")
    token = ops.CreateToken(b)
    with pytest.raises(OpError) as e:
        ops.RecvFromHost(token, F32_2, types.SimpleNamespace(handle=1, type="DEVICE_TO_HOST"))
    assert (e.value.op, e.value.constraint, e.value.arg) == ("RecvFromHost", "C3", "handle")
    with pytest.raises(OpError) as e:
        ops.SendToHost(ops.Parameter(b, 0, F32_2), token, F32_2, types.SimpleNamespace(handle=1, type=3))
    assert (e.value.op, e.value.constraint, e.value.arg) == ("SendToHost", "C4", "handle")
    with pytest.raises(OpError) as e:
        ops.SendToHost(ops.Parameter(b, 1, F32_2), token, F32_2, None)
    assert e.value.constraint == "C4"


# -- custom calls ------------------------------------------------------------------------------
@pytest.fixture
def scale_target():
    """A user target: x * (number of opaque bytes), the opaque reaching each backend's function."""
    register_custom_call_target("test.scale_by_opaque_length",
                                reference=lambda x, opaque: x * np.float32(len(opaque)),
                                jax=lambda x, opaque: x * np.float32(len(opaque)))
    yield "test.scale_by_opaque_length"
    unregister_custom_call_target("test.scale_by_opaque_length")


@pytest.mark.parametrize("name", BACKENDS)
def test_user_target_runs_on_both_backends(name, scale_target):
    b = XlaBuilder("user")
    x = ops.Parameter(b, 0, F32_2)
    ops.CustomCall(b, scale_target, [x], F32_2, opaque=b"abc", has_side_effect=True)
    out = get_backend(name).execute(b.build(), [_f32(1.5, -2)])
    np.testing.assert_array_equal(out[0], _f32(4.5, -6))


@pytest.mark.parametrize("name", BACKENDS + ["pallas"])
def test_unknown_target_is_refused_naming_it(name):
    b = XlaBuilder("unknown")
    ops.CustomCall(b, "no.such.target", [ops.Constant(b, _f32(1, 2))], F32_2)
    comp = b.build()  # building never resolves the target: XLA does that when compiling
    backend = get_backend(name)
    assert "no custom-call target 'no.such.target'" in backend.supports(comp)
    with pytest.raises(UnsupportedError, match="no.such.target"):
        backend.execute(comp, [])


def test_target_registered_after_building_runs():
    b = XlaBuilder("late")
    ops.CustomCall(b, "test.late", [ops.Constant(b, _f32(1, 2))], F32_2)
    comp = b.build()
    register_custom_call_target("test.late", reference=lambda x: x + 1, jax=lambda x: x + 1)
    try:
        for name in BACKENDS:
            np.testing.assert_array_equal(get_backend(name).execute(comp, [])[0], _f32(2, 3))
    finally:
        unregister_custom_call_target("test.late")


def test_target_for_one_backend_only():
    register_custom_call_target("test.numpy_only", reference=lambda x: x)
    try:
        b = XlaBuilder("one")
        ops.CustomCall(b, "test.numpy_only", [ops.Constant(b, _f32(1, 2))], F32_2)
        comp = b.build()
        assert get_backend("reference").supports(comp) is None
        assert "backend 'jax'" in get_backend("jax").supports(comp)
    finally:
        unregister_custom_call_target("test.numpy_only")


@pytest.mark.parametrize("name", BACKENDS)
def test_target_returning_the_wrong_shape_is_an_op_error(name):
    register_custom_call_target("test.wrong", reference=lambda x: x.astype(np.float64), jax=lambda x: x[:1])
    try:
        b = XlaBuilder("wrong_result")
        ops.CustomCall(b, "test.wrong", [ops.Constant(b, _f32(1, 2))], F32_2)
        with pytest.raises(OpError, match=r"custom-call target 'test.wrong' must be f32\[2\]"):
            get_backend(name).execute(b.build(), [])
    finally:
        unregister_custom_call_target("test.wrong")


@pytest.mark.parametrize("name", BACKENDS)
def test_custom_call_with_computation_passes_the_computation(name):
    sub = XlaBuilder("mul")
    ops.Mul(ops.Parameter(sub, 0, F32_2), ops.Parameter(sub, 1, F32_2))
    b = XlaBuilder("with_computation")
    x = ops.Constant(b, _f32(3, -4))
    ops.CustomCallWithComputation(b, "xla_semantics.apply", [x, x], sub.build(), F32_2)
    np.testing.assert_array_equal(get_backend(name).execute(b.build(), [])[0], _f32(9, 16))


def test_custom_call_xla_client_enums_and_numbers():
    class CustomCallSchedule:  # stands for xla_client's enum members (anything with a .name)
        name = "SCHEDULE_LATEST"
    b = XlaBuilder("enums")
    op = ops.CustomCall(b, "xla_semantics.identity", [ops.Constant(b, _f32(1, 2))], F32_2,
                        schedule=CustomCallSchedule(), api_version=3)
    inst = b._instructions[op.id]
    assert inst.attrs["schedule"] == "SCHEDULE_LATEST"
    assert inst.attrs["api_version"] == "API_VERSION_STATUS_RETURNING_UNIFIED"
    op = ops.CustomCall(b, "xla_semantics.identity", [ops.Constant(b, _f32(1, 2))], F32_2,
                        schedule=backend.CustomCallSchedule.SCHEDULE_EARLIEST,
                        api_version=backend.CustomCallApiVersion.API_VERSION_TYPED_FFI)
    assert b._instructions[op.id].attrs["schedule"] == "SCHEDULE_EARLIEST"
    assert b._instructions[op.id].attrs["api_version"] == "API_VERSION_TYPED_FFI"
    for bad in (0, -1, 5, "API_VERSION_UNSPECIFIED"):  # 0 is XLA's unspecified version
        with pytest.raises(OpError) as e:
            ops.CustomCall(b, "t", [], F32_2, api_version=bad)
        assert e.value.constraint == "C3" and "API_VERSION_ORIGINAL=1" in str(e.value)


def test_custom_call_layout_and_aliasing_errors():
    b = XlaBuilder("alias")
    x = ops.Constant(b, _f32(1, 2))
    with pytest.raises(OpError) as e:
        ops.CustomCallWithAliasing(b, "t", [x], F32_2, [F32_2], output_operand_aliasing=[((), (0, (0,)))])
    assert e.value.constraint == "C6" and "no such operand subshape" in str(e.value)
    with pytest.raises(OpError) as e:
        ops.CustomCallWithAliasing(b, "t", [x], F32_2, [F32_2], output_operand_aliasing=[((), 0)])
    assert e.value.constraint == "C6"
    with pytest.raises(OpError) as e:
        ops.CustomCallWithLayout(b, "t", [x, x], F32_2, [F32_2])
    assert e.value.constraint == "C5" and "1 shapes for 2 operands" in str(e.value)


def test_register_custom_call_target_checks_its_arguments():
    with pytest.raises(OpError, match="non-empty string"):
        register_custom_call_target("", reference=abs)
    with pytest.raises(OpError, match="not callable"):
        register_custom_call_target("test.bad", jax=3)
    with pytest.raises(OpError, match="at least one backend"):
        register_custom_call_target("test.bad")


# -- the conformance runner compares outfeed values ----------------------------------------------
def _outfeed_case(expected_outfeed: tuple) -> Case:
    return Case(id="Outfeed/test", op="Outfeed", kind="golden", inputs={"operand": _f32(1, 2)},
                attrs={"shape_with_layout": "f32[2]"}, expected=TOKEN, outfeed=expected_outfeed)


@pytest.mark.parametrize("name", BACKENDS)
def test_runner_checks_the_outfeed(name):
    backend = get_backend(name)
    assert run_case(_outfeed_case((_f32(1, 2),)), backend).status == PASSED
    wrong = run_case(_outfeed_case((_f32(1, 3),)), backend)
    assert wrong.status == FAILED and "outfeed value 0 differs" in wrong.message
    missing = run_case(_outfeed_case((_f32(1, 2), _f32(1, 2))), backend)
    assert missing.status == FAILED and "got 1 values, expected 2" in missing.message


def test_execution_error_is_not_raised_for_valid_io_programs():
    """A program without Infeed or Outfeed ignores io arguments (no error, nothing appended)."""
    b = XlaBuilder("plain")
    ops.Neg(ops.Constant(b, _f32(1, 2)))
    outfeed: list = []
    try:
        out = get_backend("jax").execute(b.build(), [], infeed=[_f32(0, 0)], outfeed=outfeed)
    except ExecutionError as e:  # pragma: no cover - the failure is the assertion below
        pytest.fail(str(e))
    np.testing.assert_array_equal(out[0], _f32(-1, -2))
    assert outfeed == []


@pytest.mark.parametrize("name", ["reference", "jax"])
def test_a_target_name_as_bytes_as_xla_client_passed_it(name):
    """xla_client's CustomCall took the target's name as bytes (``b"lapack_sgetrf"``); it names the same target."""
    b = XlaBuilder("bytes_target")
    ops.CustomCall(b, b"xla_semantics.negate", [ops.Constant(b, np.array([1, -2], np.float32))], F32_2)
    assert "call_target_name=xla_semantics.negate," in b.build().as_hlo_text()   # a string, as if given as one
    assert get_backend(name).execute(b.build(), [])[0].tolist() == [-1, 2]
    with pytest.raises(OpError) as e:
        ops.CustomCall(b, b"\xff", [], F32_2)
    assert (e.value.constraint, e.value.arg) == ("C1", "call_target_name")
