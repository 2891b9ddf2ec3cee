"""The IREE backend (an optional extra): a few real computations, its caches, its refusals, its entry point.

Skipped when iree-base-compiler / iree-base-runtime are not installed."""

import ast
import importlib
import tomllib
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from backend import ExecutionError, OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops  # noqa: E402
from tests.test_export import bias_relu  # noqa: E402
from xla_semantics_iree import IreeBackend, IreeVmvxBackend  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def iree(tmp_path_factory):
    return IreeBackend(cache_dir=tmp_path_factory.mktemp("iree_cache"))


def test_runs_a_computation_and_caches_it_in_memory(iree):
    comp = bias_relu()
    x = np.array([[-1, 0, 1], [2, -3, 4]], np.float32)
    v = np.array([0.5, 1, -2], np.float32)
    before = iree.compilations
    (out,) = iree.execute(comp, [x, v])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[0, 1, 0], [2.5, 0, 2]])
    np.testing.assert_array_equal(iree.execute(comp, [v + x, v])[0], [[0, 2, 0], [3, 0, 0]])
    assert iree.compilations == before + 1  # the second call reused the compiled module
    assert iree.info()["version"] == "3.13.0" and iree.info()["device"] == "llvm-cpu/local-task"


def test_disk_cache_is_keyed_by_the_stablehlo(iree):
    comp = bias_relu()
    iree.execute(comp, [np.zeros((2, 3), np.float32), np.zeros(3, np.float32)])
    key = iree.cache_key(comp.as_stablehlo_text())
    assert (iree.cache_dir / f"{key}.vmfb").is_file()
    fresh = IreeBackend(cache_dir=iree.cache_dir)
    (out,) = fresh.execute(bias_relu(), [np.ones((2, 3), np.float32), np.ones(3, np.float32)])
    np.testing.assert_array_equal(out, np.full((2, 3), 2, np.float32))
    assert fresh.compilations == 0


def test_tuple_result_with_scalars_and_64_bit_values(iree):
    c = XlaBuilder("pair")
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F64, ()), "x")
    n = ops.Parameter(c, 1, Shape.array_shape(PrimitiveType.S32, (3,)), "n")
    ops.Tuple(c, [ops.Mul(x, x), ops.Lt(n, ops.Constant(c, np.int32(2)))])
    squares, below = iree.execute(c.build(), [np.float64(1e20), np.array([1, 2, 3], np.int32)])
    assert squares.dtype == np.float64 and squares.shape == ()
    assert squares == np.float64(1e40)  # f64 kept (IREE's default demotion to f32 would give inf)
    np.testing.assert_array_equal(below, [True, False, False])


def _one_op(et, dims, build, name="op"):
    c = XlaBuilder(name)
    build(c, ops.Parameter(c, 0, Shape.array_shape(et, dims), "x"))
    return c.build()


def _size(c, number=1):
    return ops.Parameter(c, number, Shape.array_shape(PrimitiveType.S32, ()), f"n{number}")


#: (computation, the refusal's op, the limits.py reason and its fields, the diagnostic of IREE the reason quotes, which a
#: program of docs/iree_differences.md shows with IREE alone).
IREE_LIMITS = [
    (lambda: _one_op(PrimitiveType.F32, (2, 2), lambda c, x: ops.Cholesky(x, True)), "Cholesky", "LINEAR_ALGEBRA", {},
     "failed to legalize operation 'stablehlo.cholesky' that was explicitly marked illegal"),
    (lambda: _one_op(PrimitiveType.F64, (2, 2), lambda c, x: ops.TriangularSolve(x, x)), "TriangularSolve",
     "LINEAR_ALGEBRA", {}, "failed to legalize operation 'stablehlo.triangular_solve' that was explicitly marked illegal"),
    *[(lambda f=f: _one_op(PrimitiveType.F32, (2, 2), lambda c, x: f(x)), name, "LINEAR_ALGEBRA", {},
       "failed to legalize operation 'stablehlo.custom_call' that was explicitly marked illegal")
      for name, f in (("QR", ops.QR), ("QrDecomposition", ops.QrDecomposition), ("LU", ops.LU), ("Eigh", ops.Eigh),
                      ("SVD", ops.SVD))],
    (lambda: _one_op(PrimitiveType.S1, (4,), lambda c, x: ops.Neg(x)), "Parameter", "NO_ONE_BIT_INTEGERS",
     {"type": "s1"}, "'stablehlo.add' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or "
     "2/4/8/16/32/64-bit integer"),
    (lambda: _one_op(PrimitiveType.U1, (4,), lambda c, x: ops.Not(x)), "Parameter", "NO_ONE_BIT_INTEGERS",
     {"type": "u1"}, "'stablehlo.add' op operand #0 must be ranked tensor"),
    (lambda: _one_op(PrimitiveType.C64, (2,), lambda c, x: ops.Cbrt(x)), "Cbrt", "NO_COMPLEX_CBRT", {},
     "failed to legalize operation 'stablehlo.cbrt' that was explicitly marked illegal"),
    (lambda: _one_op(PrimitiveType.C128, (2,), lambda c, x: ops.BitcastConvertType(x, PrimitiveType.C64)),
     "BitcastConvertType", "COMPLEX_BITCAST_CRASHES", {"old": "c128", "new": "c64"}, "Error code: -11"),
    (lambda: _one_op(PrimitiveType.F32, (6,), lambda c, x: ops.DynamicReshape(x, [_size(c), _size(c, 2)], [2, 3],
                                                                               [True, False])),
     "DynamicReshape", "NO_DYNAMIC_RESHAPE", {},
     "failed to legalize operation 'stablehlo.dynamic_reshape' that was explicitly marked illegal"),
]


@pytest.mark.parametrize("make,opcode,name,fields,diagnostic", IREE_LIMITS,
                         ids=[f"{o}-{n}-{'-'.join(f.values())}" for _, o, n, f, _ in IREE_LIMITS])
def test_refusals_state_iree_s_own_limit(iree, make, opcode, name, fields, diagnostic):
    """What IREE (or StableHLO) cannot hold is refused with that limit, not with the export's (jax's) reason; each
    reason quotes a diagnostic that a program of docs/iree_differences.md gets from IREE alone."""
    from xla_semantics_iree import limits

    stated = getattr(limits, name)
    stated = stated[opcode] if isinstance(stated, dict) else stated.format(**fields)
    assert iree.supports(make()) == f"{opcode}: {stated}"
    assert "jax" not in stated.split("(")[0]  # the limit is IREE's or StableHLO's, not the export's
    doc = (ROOT / "docs" / "iree_differences.md").read_text()
    assert f"// iree-compile fails: {diagnostic}" in doc


def test_one_bit_and_complex_bitcast_reasons_name_the_types(iree):
    s1 = iree.supports(_one_op(PrimitiveType.S1, (4,), lambda c, x: ops.Neg(x)))
    assert s1.startswith("Parameter: StableHLO has no 1-bit integer type, so no StableHLO program holds s1 values")
    u1 = iree.supports(_one_op(PrimitiveType.U1, (4,), lambda c, x: ops.Not(x)))
    assert "holds u1 values" in u1 and "rejects tensor<4xui1>" in u1
    bitcast = iree.supports(_one_op(PrimitiveType.C128, (2,), lambda c, x: ops.BitcastConvertType(x,
                                                                                                  PrimitiveType.C64)))
    assert "(c128 -> c64)" in bitcast
    same = _one_op(PrimitiveType.C64, (2,), lambda c, x: ops.BitcastConvertType(x, PrimitiveType.C64))
    assert iree.supports(same) is None  # a complex type to itself is no bitcast between widths
    real = _one_op(PrimitiveType.F32, (2,), lambda c, x: ops.Cbrt(x))
    assert iree.supports(real) is None  # real Cbrt runs


@pytest.mark.parametrize("backend_class", [IreeBackend, IreeVmvxBackend])
@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.float8_e4m3])
def test_bounded_dynamic_results_run_at_their_runtime_size(backend_class, dtype, tmp_path):
    """The document's set_dimension_size(v, five, 0) on v = {1, ..., 10}: f32[<=10] of runtime size 5, whose elements
    are 1..5 (specs/ops/set_dimension_size.yaml, doc_padded_v_five), exported as set_dimension_size on the static
    stand-in; f8e4m3 crosses the module boundary as bytes (xla_semantics_iree.bridge) before its size is set."""
    backend = backend_class(cache_dir=tmp_path)
    comp = _one_op(PrimitiveType.F32 if dtype is np.float32 else PrimitiveType.F8E4M3, (10,),
                   lambda c, x: (n := _size(c), ops.Tuple(c, [ops.SetDimensionSize(x, n, 0), n])))
    assert backend.supports(comp) is None
    padded, size = backend.execute(comp, [np.arange(1, 11).astype(dtype), np.int32(5)])
    assert padded.dtype == np.dtype(dtype) and padded.astype(np.float64).tolist() == [1, 2, 3, 4, 5]
    assert size == 5


def test_a_bounded_dynamic_value_read_by_the_program_is_refused_as_the_adapter_s_limit_not_iree_s(iree):
    """IREE runs set_dimension_size and get_dimension_size (docs/iree_differences.md, U5); a program that reads a
    bounded-dynamic value (not only returns it) is what this adapter's export cannot give, and the reason says so."""
    comp = _one_op(PrimitiveType.F32, (10,), lambda c, x: ops.GetDimensionSize(ops.SetDimensionSize(x, _size(c), 0), 0))
    reason = iree.supports(comp)
    assert reason.startswith("not IREE's limit but this adapter's: SetDimensionSize's result f32[<=10] has a "
                             "bounded-dynamic dimension that the program reads")
    assert "IREE itself compiles and runs StableHLO's set_dimension_size" in reason
    # a DynamicReshape to a bounded-dynamic shape after it: IREE's own limit comes first
    c = XlaBuilder("sds_reshape")
    x = ops.SetDimensionSize(ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (6,)), "x"), _size(c), 0)
    ops.DynamicReshape(x, [_size(c, 2), _size(c, 3)], [2, 3], [True, False])
    assert iree.supports(c.build()).startswith("DynamicReshape: IREE 3.13 does not lower stablehlo.dynamic_reshape")
    static = _one_op(PrimitiveType.F32, (6,), lambda c, x: ops.DynamicReshape(x, [_size(c), _size(c, 2)], [2, 3],
                                                                               [False, False]))
    assert iree.supports(static) is None  # no dynamic dimension: a plain reshape
    doc = (ROOT / "docs" / "iree_differences.md").read_text()
    assert "// iree: [np.array([0, 1, 2], np.float32), np.array(3, np.int32)]" in doc  # IREE's set_dimension_size


def _greater(*types):
    c = XlaBuilder("greater")
    params = [ops.Parameter(c, k, Shape.array_shape(et, ()), f"p{k}") for k, et in enumerate(t for t in types
                                                                                            for _ in (0, 1))]
    ops.Gt(params[0], params[1])
    return c.build()


def test_approx_top_k_runs_as_its_exact_form(iree):
    """jax's export of ApproxTopK is XLA's custom_call @ApproxTopK; the backend exports its exact form (sort and
    slice, an outcome its spec allows), which IREE runs. Values from specs/ops/approx_top_k.yaml's examples, worked by
    hand: the three largest of [1, 9, 3, 7, 5, 2] are 9 (index 1), 7 (3), 5 (4)."""
    c = XlaBuilder("approx_top_k")
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (6,)), "x")
    i = ops.Parameter(c, 1, Shape.array_shape(PrimitiveType.S32, (6,)), "i")
    ops.ApproxTopK(c, [x, i], [ops.Constant(c, np.float32(-np.inf)), ops.Constant(c, np.int32(-1))], 3, 0,
                   _greater(PrimitiveType.F32, PrimitiveType.S32))
    comp = c.build()
    assert "custom_call @ApproxTopK" in comp.as_stablehlo_text()  # what jax's export gives
    assert iree.supports(comp) is None
    values, index = iree.execute(comp, [np.array([1, 9, 3, 7, 5, 2], np.float32), np.arange(6, dtype=np.int32)])
    assert values.tolist() == [9, 7, 5] and index.tolist() == [1, 3, 4]
    # along dimension 1 of a 2 x 4 matrix, not aggregated to top_k (n = 4 <= 128: every element, sorted)
    c = XlaBuilder("approx_top_k_rows")
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F64, (2, 4)), "x")
    ops.ApproxTopK(c, [x], [ops.Constant(c, np.float64(-np.inf))], 1, 1, _greater(PrimitiveType.F64),
                   aggregate_to_topk=False)
    (rows,) = iree.execute(c.build(), [np.array([[2, 8, 1, 4], [-1, 0.5, 3, -7]])])
    assert rows.dtype == np.float64 and rows.tolist() == [[8, 4, 2, 1], [3, 0.5, -1, -7]]


#: Per element type IREE's runtime cannot pass itself: values, and their negations worked out by hand (for the
#: unsigned types, modulo 2^bits: -1 = 3 in u2, 15 in u4).
BRIDGED_NEGATIONS = [
    (PrimitiveType.F8E4M3, ml_dtypes.float8_e4m3, [1.5, -np.inf, 240, -0.0], [-1.5, np.inf, -240, 0.0]),
    (PrimitiveType.F8E3M4, ml_dtypes.float8_e3m4, [0.0625, 15.5, np.inf, 1.0], [-0.0625, -15.5, -np.inf, -1.0]),
    (PrimitiveType.F8E4M3B11FNUZ, ml_dtypes.float8_e4m3b11fnuz, [1.5, -2, 30, 0.25], [-1.5, 2, -30, -0.25]),
    (PrimitiveType.S2, ml_dtypes.int2, [-2, -1, 0, 1], [-2, 1, 0, -1]),
    (PrimitiveType.S4, ml_dtypes.int4, [-8, 7, -1, 0], [-8, -7, 1, 0]),
    (PrimitiveType.U2, ml_dtypes.uint2, [0, 1, 2, 3], [0, 3, 2, 1]),
    (PrimitiveType.U4, ml_dtypes.uint4, [0, 1, 8, 15], [0, 15, 8, 1]),
    (PrimitiveType.F4E2M1FN, ml_dtypes.float4_e2m1fn, [6, -0.5, 1.5, -0.0], [-6, 0.5, -1.5, 0.0]),
]


@pytest.mark.parametrize("et,dtype,values,negated", BRIDGED_NEGATIONS, ids=lambda v: getattr(v, "name", None))
def test_types_the_runtime_cannot_pass_cross_as_bytes(iree, et, dtype, values, negated):
    """Parameters and results of these types travel as 8-bit integers, converted inside the module: the values
    come back exact (signs of zero and infinities included), in their own dtype."""
    c = XlaBuilder("neg_bridged")
    x = ops.Parameter(c, 0, Shape.array_shape(et, (4,)), "x")
    ops.Tuple(c, [ops.Neg(x), ops.ConvertElementType(x, PrimitiveType.F32)])
    comp = c.build()
    assert iree.supports(comp) is None
    neg, as_f32 = iree.execute(comp, [np.array(values, dtype)])
    assert neg.dtype == np.dtype(dtype) and as_f32.dtype == np.float32
    assert neg.astype(np.float32).tolist() == negated and as_f32.tolist() == values
    assert np.signbit(neg.astype(np.float32)).tolist() == np.signbit(np.array(negated, np.float32)).tolist()


def test_the_bridge_keeps_nan_payloads_of_8_bit_floats(iree):
    """8-bit floats cross as their bit patterns (bitcast_convert): a NaN of either sign keeps its bits."""
    c = XlaBuilder("copy_f8")
    ops.Copy(ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F8E4M3, (2,)), "x"))
    bits = np.array([0x7F, 0xFD], np.uint8)  # f8e4m3: +NaN (mantissa 111), -NaN (mantissa 101)
    (out,) = iree.execute(c.build(), [bits.view(ml_dtypes.float8_e4m3)])
    assert out.view(np.uint8).tolist() == [0x7F, 0xFD]


def test_compile_errors_are_failures_with_iree_diagnostic(iree):
    c = XlaBuilder("rev_u8")
    ops.Rev(ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.U8, (2,)), "x"), (0,))
    comp = c.build()
    assert iree.supports(comp) is None
    assert get_backend("jax").execute(comp, [np.array([1, 2], np.uint8)])[0].tolist() == [2, 1]
    with pytest.raises(ExecutionError, match="IreeCompileError: failed to legalize operation 'linalg.generic'"):
        iree.execute(comp, [np.array([1, 2], np.uint8)])


def test_entry_point_and_public_api_only():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for name, cls in (("iree", IreeBackend), ("iree-vmvx", IreeVmvxBackend)):
        module, _, attr = project["entry-points"]["xla_semantics.backends"][name].partition(":")
        assert getattr(importlib.import_module(module), attr) is cls and cls.name == name
    assert any(r.startswith("iree-base-compiler") for r in project["optional-dependencies"]["iree"])
    imported = set()
    for path in (ROOT / "xla_semantics_iree").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
    # the facade, the registry, the export API and the backend protocol (Backend and its argument checks)
    assert {m for m in imported if m.startswith("backend")} <= {"backend", "backend.backends", "backend.export",
                                                                "backend.runtime.protocol"}


def negate(et, dims):
    c = XlaBuilder("neg")
    ops.Neg(ops.Parameter(c, 0, Shape.array_shape(et, dims), "x"))
    return c.build()


def test_execute_batch_compiles_the_batch_as_one_module(tmp_path):
    fresh = IreeBackend(cache_dir=tmp_path)
    comps = [bias_relu(), negate(PrimitiveType.S32, (2,)), negate(PrimitiveType.F64, ())]
    args = [[np.ones((2, 3), np.float32), np.array([1, -5, 0], np.float32)], [np.array([3, -4], np.int32)],
            [np.float64(0.25)]]
    first, second, third = fresh.execute_batch(list(zip(comps, args)))
    assert fresh.compilations == 1  # one iree-compile run for the three
    np.testing.assert_array_equal(first[0], [[2, 0, 1], [2, 0, 1]])
    assert second[0].tolist() == [-3, 4] and third[0] == -0.25 and third[0].dtype == np.float64
    assert len(list(tmp_path.glob("*.vmfb"))) == 1


def test_execute_batch_item_that_does_not_compile_fails_alone(tmp_path):
    fresh = IreeBackend(cache_dir=tmp_path)
    c = XlaBuilder("rev_u8")
    ops.Rev(ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.U8, (2,)), "x"), (0,))
    items = [(negate(PrimitiveType.S32, (2,)), [np.array([1, 2], np.int32)]), (c.build(), [np.array([1, 2], np.uint8)]),
             (negate(PrimitiveType.F32, (1,)), [np.array([2], np.float32)]), (bias_relu(), [np.zeros((2, 3))])]
    ok, failed, also_ok, wrong_arguments = fresh.execute_batch(items)
    assert ok[0].tolist() == [-1, -2] and also_ok[0].tolist() == [-2]
    assert isinstance(failed, ExecutionError) and "failed to legalize operation 'linalg.generic'" in str(failed)
    assert isinstance(wrong_arguments, OpError)  # refused before compiling: one argument for two parameters
    # the linked module, which iree-compile's diagnostic points at Rev's function in; the two others linked
    # again; Rev alone. A second run of the failing one is not compiled again.
    assert fresh.compilations == 3
    with pytest.raises(ExecutionError, match="linalg.generic"):
        fresh.execute(items[1][0], items[1][1])
    assert fresh.compilations == 3


def test_a_linked_module_that_fails_twice_leaves_every_item_to_run_alone(tmp_path):
    """Two items that do not compile, iree-compile pointing at one per run: the batch without the first is linked
    once more, and when that fails too each item is compiled alone (bounded: no attempt per failing item)."""
    fresh = IreeBackend(cache_dir=tmp_path)
    revs = []
    for n in (2, 3):
        c = XlaBuilder("rev_u8")
        ops.Rev(ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.U8, (n,)), "x"), (0,))
        revs.append(c.build())
    items = [(negate(PrimitiveType.S32, (2,)), [np.array([1, 2], np.int32)]), (revs[0], [np.array([1, 2], np.uint8)]),
             (revs[1], [np.array([1, 2, 3], np.uint8)]), (negate(PrimitiveType.S32, (3,)), [np.array([1, 2, 3], np.int32)])]
    first, failed, also_failed, last = fresh.execute_batch(items)
    assert first[0].tolist() == [-1, -2] and last[0].tolist() == [-1, -2, -3]
    assert isinstance(failed, ExecutionError) and isinstance(also_failed, ExecutionError)
    assert fresh.compilations == 2 + 4  # two linked attempts, then the four alone


def rev_u8():
    c = XlaBuilder("rev_u8")
    ops.Rev(ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.U8, (2,)), "x"), (0,))
    return c.build()


def test_a_diagnosed_compile_failure_is_cached_in_memory_and_on_disk(tmp_path):
    """iree-compile is deterministic: the same module rejected once (the runner builds a failing case again to run it
    alone) is not compiled again, in this process or another one with the same cache."""
    fresh = IreeBackend(cache_dir=tmp_path)
    with pytest.raises(ExecutionError, match="linalg.generic"):
        fresh.execute(rev_u8(), [np.array([1, 2], np.uint8)])
    with pytest.raises(ExecutionError, match="linalg.generic"):
        fresh.execute(rev_u8(), [np.array([1, 2], np.uint8)])  # a new computation of the same StableHLO
    assert fresh.compilations == 1
    assert len(list(tmp_path.glob("*.rejected"))) == 1 and not list(tmp_path.glob("*.vmfb"))
    other = IreeBackend(cache_dir=tmp_path)
    with pytest.raises(ExecutionError, match="failed to legalize operation 'linalg.generic'"):
        other.execute(rev_u8(), [np.array([1, 2], np.uint8)])
    assert other.compilations == 0
    (next(tmp_path.glob("*.rejected"))).write_text("not a record")  # unreadable: compiled again
    third = IreeBackend(cache_dir=tmp_path)
    with pytest.raises(ExecutionError, match="linalg.generic"):
        third.execute(rev_u8(), [np.array([1, 2], np.uint8)])
    assert third.compilations == 1


def test_a_program_that_exchanges_nothing_runs_on_every_device(iree):
    """Several devices, no collective and no device id: each device's results are the program's on its arguments."""
    comp = negate(PrimitiveType.F32, (2,))
    per_device = iree.execute(comp, [[np.float32([1, -2])], [np.float32([3, 0])]], replicas=1, partitions=2)
    assert [out[0].tolist() for out in per_device] == [[-1, 2], [-3, -0.0]]
    with pytest.raises(OpError, match="a run on 2 devices takes a list of 2 per-device argument lists"):
        iree.execute(comp, [[np.float32([1, -2])]], replicas=2, partitions=1)


def test_collectives_and_device_ids_are_refused_with_iree_s_own_limit(iree):
    """IREE's CPU drivers have no collective channels (docs/iree_differences.md, "Collectives and device ids"): the
    reason names that, not the export's single-device programs."""
    from backend import UnsupportedError
    from xla_semantics_iree.limits import NO_COLLECTIVES

    c = XlaBuilder("ag")
    ops.AllGatherStart(ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (2,)), "x"), 0, 2)
    assert iree.supports(c.build()) == f"AllGatherStart: {NO_COLLECTIVES}"
    with pytest.raises(UnsupportedError, match="hal.channel.create with 'UNIMPLEMENTED; collectives not implemented'"):
        iree.execute(c.build(), [[np.ones(2, np.float32)]] * 2, replicas=1, partitions=2)
    one = XlaBuilder("rid")
    ops.ReplicaId(one)
    with pytest.raises(UnsupportedError, match="on one device or several"):
        iree.execute(one.build(), [])  # even on one device: replica_id needs a channel
    doc = (ROOT / "docs" / "iree_differences.md").read_text()
    assert "// iree-run fails: UNIMPLEMENTED; collectives not implemented" in doc


def test_host_transfers_are_refused_with_iree_s_own_limit(iree):
    """IREE has no lowering of infeed, outfeed and host send/recv (docs/iree_differences.md, U2)."""
    from xla_semantics_iree.limits import NO_HOST_IO

    c = XlaBuilder("infeed")
    ops.Infeed(c, Shape.array_shape(PrimitiveType.F32, (2,)))
    assert iree.supports(c.build()) == f"Infeed: {NO_HOST_IO}"
    assert "failed to legalize operation 'stablehlo.infeed'" in (ROOT / "docs" / "iree_differences.md").read_text()


def test_the_sharded_program_is_unsupported_for_iree_s_reason(iree):
    """The corpus program ``sharded`` (shard_map over 8 devices: psum, all_gather, ppermute) is refused with IREE's
    limit, which docs/iree_differences.md shows with IREE alone."""
    from conformance import check_program

    path = ROOT / "conformance" / "programs" / "sharded.mlir"
    computation = check_program.load_program(path)
    inputs = check_program.load_inputs(path.with_suffix(".npz"), computation)
    devices = check_program.program_devices(path)
    checked = check_program.check_program(computation, iree, inputs, "sharded", devices=devices)
    assert checked.status == check_program.UNSUPPORTED
    assert "IREE's CPU drivers (local-task, local-sync) implement no collective channels" in checked.message


def test_vmvx_backend_runs_on_the_reference_vm(tmp_path):
    """``--backend iree-vmvx`` (or its module:attribute spec, which needs no reinstall): IREE's portable VM."""
    vmvx = get_backend("xla_semantics_iree:IreeVmvxBackend")
    assert isinstance(vmvx, IreeVmvxBackend) and vmvx.info()["device"] == "vmvx/local-sync"
    fresh = IreeVmvxBackend(cache_dir=tmp_path)
    x = np.array([[-1, 0, 1], [2, -3, 4]], np.float32)
    (out,) = fresh.execute(bias_relu(), [x, np.array([0.5, 1, -2], np.float32)])
    np.testing.assert_array_equal(out, [[0, 1, 0], [2.5, 0, 2]])
    (neg,) = fresh.execute(negate(PrimitiveType.S4, (2,)), [np.array([-8, 3], ml_dtypes.int4)])
    assert neg.dtype == ml_dtypes.int4 and neg.tolist() == [-8, -3]
    key = fresh.cache_key(bias_relu().as_stablehlo_text())
    assert key != IreeBackend(cache_dir=None).cache_key(bias_relu().as_stablehlo_text())  # its own target's code


def _reproduction_sample(count: int) -> list[str]:
    """``count`` ids of the committed IREE report's failures, spread over it (every k-th, in report order)."""
    import json

    report = json.loads((ROOT / "reports" / "iree" / "report.json").read_text())
    failing = [c["id"] for c in report["cases"] if c["status"] in ("failed", "crashed")]
    return failing[:: max(1, len(failing) // count)][:count]


def _run_reproduction_as_printed(case_id: str) -> None:
    """The reproduction this version prints for ``case_id`` on ``iree``, run in a fresh interpreter: it prints the
    results, or ends in the backend's own ExecutionError (the compile failure the report recorded)."""
    import os
    import subprocess
    import sys

    import specs
    from conformance.build import reproduction
    from conformance.generate import cases_for

    op = case_id.split("/")[0]
    case = next(c for c in cases_for(specs.get(op)) if c.id == case_id)
    source = reproduction(case, "iree")
    proc = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    if proc.returncode == 0:
        assert proc.stdout.startswith("["), (case_id, proc.stdout[-2000:])
    else:
        assert last.startswith(f"backend.errors.ExecutionError: backend 'iree' failed in {op}"), (
            case_id, source, proc.stderr[-3000:])


@pytest.mark.parametrize("case_id", _reproduction_sample(3))
def test_iree_reproductions_run_as_printed(case_id):
    _run_reproduction_as_printed(case_id)


@pytest.mark.slow
@pytest.mark.parametrize("case_id", _reproduction_sample(40))
def test_iree_reproductions_run_as_printed_many(case_id):
    _run_reproduction_as_printed(case_id)


def test_bridge_module_wraps_main_only_where_needed():
    from xla_semantics_iree.bridge import bridge_module

    plain = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n"
    assert bridge_module(plain) == plain  # nothing to bridge: the module as it came
    assert bridge_module("not MLIR") == "not MLIR"  # left to iree-compile, whose parser reports it
    typed = ("func.func @main(%x: tensor<2xf8E4M3>, %n: tensor<4xi4>) -> (tensor<2xf8E4M3>, tensor<4xui2>) {\n"
             "  %u = stablehlo.convert %n : (tensor<4xi4>) -> tensor<4xui2>\n"
             "  return %x, %u : tensor<2xf8E4M3>, tensor<4xui2>\n}\n")
    bridged = bridge_module(typed)
    assert "func.func private @main_typed(%arg0: tensor<2xf8E4M3>, %arg1: tensor<4xi4>)" in bridged
    assert "func.func @main(%arg0: tensor<2xi8>, %arg1: tensor<4xi8>) -> (tensor<2xi8>, tensor<4xui8>)" in bridged
    assert bridged.count("stablehlo.bitcast_convert") == 2 and bridged.count("stablehlo.convert") == 3
