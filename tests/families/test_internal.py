"""The internal HLO instructions: Bitcast under layouts, the Start/Done pairs composed, Fusion, AddDependency,
Domain, and the instructions with no executable form.

Expected values are worked out by hand; the conformance suite runs the specs' cases.
"""

from __future__ import annotations

import numpy as np
import pytest

from backend import Shape, XlaBuilder, get_backend, ops
from backend.errors import OpError, UnsupportedError
from tests.support.cases import golden_case
from tests.support.computations import binary_computation
from tests.support.running import run_built

BACKENDS = ["reference", "jax"]
F32 = np.float32


@pytest.mark.parametrize("backend", BACKENDS)
def test_bitcast_reads_a_column_major_operand_in_memory_order(backend):
    """[[1,2,3],[4,5,6]] stored column-major ({0,1}): memory 1 4 2 5 3 6; read as f32[6] (and f32[3,2])."""
    x = np.array([[1, 2, 3], [4, 5, 6]], F32)
    b = XlaBuilder("bitcast")
    p = ops.Parameter(b, 0, Shape.array_shape(F32, (2, 3), (0, 1)), "x")
    ops.Tuple(b, [ops.Bitcast(p, Shape.array_shape(F32, (6,))), ops.Bitcast(p, Shape.array_shape(F32, (3, 2)))])
    flat, rows = get_backend(backend).execute(b.build(), [x])
    np.testing.assert_array_equal(flat, [1, 4, 2, 5, 3, 6])
    np.testing.assert_array_equal(rows, [[1, 4], [2, 5], [3, 6]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_bitcast_to_a_layout_string(backend):
    """s32[2,2] [[1,2],[3,4]] (memory 1 2 3 4) read under {0,1}: element (i, j) at i + 2j: [[1,3],[2,4]]."""
    x = np.array([[1, 2], [3, 4]], np.int32)
    out, = run_built(backend, lambda p: ops.Bitcast(p, "s32[2,2]{0,1}"), x)
    np.testing.assert_array_equal(out, [[1, 3], [2, 4]])
    assert out.dtype == np.int32


@pytest.mark.parametrize("shape, constraint", [("s32[6]", "C2"), ("f32[5]", "C3"), ("(f32[6])", "C1"),
                                                ("f32[<=6]", "C4")])
def test_bitcast_errors(shape, constraint):
    b = XlaBuilder("bad")
    with pytest.raises(OpError) as e:
        ops.Bitcast(ops.Parameter(b, 0, Shape.array_shape(F32, (2, 3)), "x"), shape)
    assert e.value.constraint == constraint and "Bitcast" in str(e.value)


@pytest.mark.parametrize("bad", [5, "f32[2,3]{0}", "f32[2,3]{0,0}", None])
def test_bitcast_malformed_shape_is_an_op_error(bad):
    b = XlaBuilder("bad")
    with pytest.raises(OpError) as e:
        ops.Bitcast(ops.Parameter(b, 0, Shape.array_shape(F32, (2, 3)), "x"), bad)
    assert "shape" in str(e.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_copy_start_done_composed_is_the_operand(backend):
    x = np.array([1.5, -0.0, np.inf], F32)
    out, = run_built(backend, lambda p: ops.CopyDone(ops.CopyStart(p)), x)
    np.testing.assert_array_equal(out, x)
    assert np.signbit(out[1])
    start = run_built(backend, ops.CopyStart, x)
    assert [np.asarray(v).dtype for v in start] == [np.float32, np.float32, np.uint32]
    np.testing.assert_array_equal(start[0], x)
    np.testing.assert_array_equal(start[1], x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_async_start_update_done_gives_the_wrapped_result(backend):
    """AsyncDone(AsyncUpdate(AsyncStart([x, y], x * y - x))): [2*3-2, -1*4+1] = [4, -3]."""
    shape = Shape.array_shape(F32, (2,))
    comp = binary_computation(lambda x, y: ops.Sub(ops.Mul(x, y), x), shape, "mul_sub")
    x, y = np.array([2, -1], F32), np.array([3, 4], F32)
    out, = run_built(backend, lambda p, q: ops.AsyncDone(ops.AsyncUpdate(ops.AsyncStart([p, q], comp))), x, y)
    np.testing.assert_array_equal(out, [4, -3])


def test_async_start_shape_and_errors():
    shape = Shape.array_shape(F32, (2,))
    comp = binary_computation(ops.Add, shape)
    b = XlaBuilder("s")
    p = ops.Parameter(b, 0, shape, "x")
    start = ops.AsyncStart([p, p], comp)
    assert str(b.get_shape(start)) == "((f32[2], f32[2]), f32[2], u32[])"
    with pytest.raises(OpError) as e:
        ops.AsyncStart([p], comp)
    assert e.value.constraint == "C1"
    with pytest.raises(OpError) as e:
        ops.AsyncDone(p)
    assert e.value.constraint == "C1" and e.value.arg == "operand"


@pytest.mark.parametrize("backend", BACKENDS)
def test_fusion_calls_the_fused_computation(backend):
    """kLoop fusion of max(x, y) + y: [max(1,4)+4, max(5,-2)-2] = [8, 3]."""
    shape = Shape.array_shape(np.int32, (2,))
    comp = binary_computation(lambda x, y: ops.Add(ops.Max(x, y), y), shape, "fused")
    x, y = np.array([1, 5], np.int32), np.array([4, -2], np.int32)
    out, = run_built(backend, lambda p, q: ops.Fusion([p, q], comp, "kLoop"), x, y)
    np.testing.assert_array_equal(out, [8, 3])


def test_fusion_errors():
    shape = Shape.array_shape(F32, (2,))
    comp = binary_computation(ops.Add, shape)
    b = XlaBuilder("f")
    p = ops.Parameter(b, 0, shape, "x")
    for call, constraint in ((lambda: ops.Fusion([p], comp), "C1"), (lambda: ops.Fusion([p, p], comp, "fast"), "C3")):
        with pytest.raises(OpError) as e:
            call()
        assert e.value.constraint == constraint
    with pytest.raises(OpError):
        ops.Fusion([p, p], "not a computation")


@pytest.mark.parametrize("backend", BACKENDS)
def test_add_dependency_and_domain_pass_the_value_on(backend):
    x = np.array([[7, -8]], np.int16)
    out, = run_built(backend, lambda b, p: ops.Domain(ops.AddDependency(p, ops.AfterAll([ops.CreateToken(b)])),
                                                      "sharding", "{maximal device=0}", "{replicated}"), x,
                     with_builder=True)
    np.testing.assert_array_equal(out, x)
    assert out.dtype == np.int16


def test_add_dependency_needs_a_token():
    b = XlaBuilder("d")
    p = ops.Parameter(b, 0, Shape.array_shape(F32, (2,)), "x")
    with pytest.raises(OpError) as e:
        ops.AddDependency(p, p)
    assert e.value.constraint == "C1" and e.value.arg == "token"


def test_collective_start_shapes_and_errors():
    b = XlaBuilder("c")
    p = ops.Parameter(b, 0, Shape.array_shape(F32, (2, 3)), "x")
    gather = ops.AllGatherStart(p, 1, 4, [[0, 1, 2, 3]])
    assert str(b.get_shape(gather)) == "(f32[2,3], f32[2,12])"
    assert str(b.get_shape(ops.AllGatherDone(gather))) == "f32[2,12]"
    permute = ops.CollectivePermuteStart(p, [[0, 1], [1, 0]])
    assert str(b.get_shape(permute)) == "(f32[2,3], f32[2,3], u32[], u32[])"
    assert str(b.get_shape(ops.CollectivePermuteDone(permute))) == "f32[2,3]"
    with pytest.raises(OpError) as e:
        ops.CollectivePermuteStart(p, [[0, 1], [2, 1]])
    assert e.value.constraint == "C2"
    with pytest.raises(OpError) as e:
        ops.AllGatherStart(p, 2, 2)
    assert e.value.constraint == "C2"


@pytest.mark.parametrize("backend", BACKENDS)
def test_rng_state_builds_but_does_not_run(backend):
    b = XlaBuilder("rng")
    state = ops.RngGetAndUpdateState(b, 8)
    assert str(b.get_shape(state)) == "u64[2]"
    with pytest.raises(UnsupportedError) as e:
        get_backend(backend).execute(b.build(), [])
    assert "RngGetAndUpdateState" in str(e.value)
    with pytest.raises(OpError) as e:
        ops.RngGetAndUpdateState(b, -1)
    assert e.value.constraint == "C1"


def test_a_start_context_may_be_any_u32_but_nothing_else_differs():
    """The backend gives context 0: expected 7 is excused (any u32), a wrong copy is not."""
    from conformance.runner import FAILED, IMPL_DEFINED, PASSED, run_case
    jax = get_backend("jax")
    x = np.array([1, 2], np.int32)
    copy = golden_case("CopyStart", {"operand": x}, (x, x, np.uint32(7)), tag="context")
    assert run_case(copy, jax).status == IMPL_DEFINED
    assert run_case(copy, jax, profile="xla").status == PASSED
    wrong = golden_case("CopyStart", {"operand": x}, (np.array([1, 3], np.int32), x, np.uint32(7)), tag="context")
    assert run_case(wrong, jax).status == FAILED
    y = np.array([0.5], F32)
    nested = golden_case("AsyncStart", {"operands": [x, y]}, ((x, y), (y, x), np.uint32(3)),
                         {"computation": {"op": "Tuple", "params": "operands", "returns": [1, 0]}}, tag="context")
    assert run_case(nested, jax).status == IMPL_DEFINED
    wrong = golden_case("AsyncStart", {"operands": [x, y]}, ((x, y), (x, y), np.uint32(3)),
                        {"computation": {"op": "Tuple", "params": "operands", "returns": [1, 0]}}, tag="context")
    assert run_case(wrong, jax).status == FAILED


@pytest.mark.parametrize("backend", BACKENDS)
def test_collective_start_done_pairs_run_as_their_collectives(backend):
    """Four replicas holding [d, 10 d] (d the replica): AllReduce's sum is [6, 60]; AllGather's concatenation
    [0, 0, 1, 10, 2, 20, 3, 30]; the permute 0->1, 1->2, 2->0 gives 0 replica 2's, 1 replica 0's, 2 replica 1's,
    and replica 3 (no target) zeros."""
    b = XlaBuilder("pairs")
    x = ops.Parameter(b, 0, Shape.array_shape(np.int32, (2,)), "x")
    reduced = ops.AllReduceDone(ops.AllReduceStart(x, binary_computation(ops.Add, np.int32)))
    gathered = ops.AllGatherDone(ops.AllGatherStart(x, 0, 4))
    permuted = ops.CollectivePermuteDone(ops.CollectivePermuteStart(x, [[0, 1], [1, 2], [2, 0]]))
    ops.Tuple(b, [reduced, gathered, permuted])
    per_device = [[np.array([d, 10 * d], np.int32)] for d in range(4)]
    results = get_backend(backend).execute(b.build(), per_device, replicas=4)
    received = [[2, 20], [0, 0], [1, 10], [0, 0]]
    for d, (r, g, p) in enumerate(results):
        np.testing.assert_array_equal(r, [6, 60])
        np.testing.assert_array_equal(g, [0, 0, 1, 10, 2, 20, 3, 30])
        np.testing.assert_array_equal(p, received[d])


def test_collective_start_execute_time_group_errors_are_op_errors():
    """shard_count 2 with 4 replicas in one group: the composed AllGather's execute-time check."""
    b = XlaBuilder("bad_groups")
    ops.AllGatherDone(ops.AllGatherStart(ops.Parameter(b, 0, Shape.array_shape(F32, (1,)), "x"), 0, 2))
    with pytest.raises(OpError) as e:
        get_backend("reference").execute(b.build(), [[np.zeros(1, F32)] for _ in range(4)], replicas=4)
    assert "shard_count" in str(e.value)
