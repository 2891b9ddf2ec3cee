"""Import of StableHLO modules (jax's lowerings, jax.export artifacts, bytecode) as computations of the spec'd ops:
the results on reference and jax equal jax's own, regions become sub-computations, and bad input is a clear
error of the project's own type."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

import backend.jax_backend  # noqa: F401 - its import gives jax 8 CPU devices (shard_map tests), before jax starts
from backend import OpError, UnsupportedError, get_backend
from backend.stablehlo_import import IMPORTERS, import_module, mapped_ops

RNG = np.random.default_rng(0)


def _imported(f, *args):
    return import_module(jax.jit(f).lower(*args).as_text())


def _assert_runs_like_jax(f, *args, backends=("reference",), rtol=1e-5, atol=1e-6):
    computation = _imported(f, *args)
    want = jax.tree_util.tree_leaves(jax.jit(f)(*args))
    for name in backends:
        got = get_backend(name).execute(computation, list(args))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)
    return computation


def _mlp_loss(x, w, y):
    h = jnp.tanh(x @ w)
    return -(jax.nn.log_softmax(h) * y).sum() / x.shape[0]


X = RNG.standard_normal((4, 3)).astype(np.float32)
W = RNG.standard_normal((3, 5)).astype(np.float32)
Y = jax.nn.one_hot(np.array([0, 2, 4, 1]), 5).astype(np.float32)


def test_mlp_loss_and_outputs_match_jax_on_reference_and_jax():
    def f(x, w, y):
        return _mlp_loss(x, w, y), jnp.argmax(x @ w, axis=1), jnp.cumsum(x, 0), jnp.sort(x, axis=1)
    computation = _assert_runs_like_jax(f, X, W, Y, backends=("reference", "jax"))
    text = computation.as_hlo_text()
    for opcode in ("dot-general(", "tanh(", "reduce(", "reduce-window(", "sort(", "iota("):
        assert opcode in text
    assert len(computation.subcomputations()) >= 4  # the reducers, the argmax pair reducer, the comparator


def test_gradient_matches_jax():
    _assert_runs_like_jax(jax.grad(_mlp_loss, argnums=(0, 1)), X, W, Y)


def test_conv_pool_and_its_gradient():
    x = RNG.standard_normal((2, 6, 6, 3)).astype(np.float32)
    k = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)

    def f(x, k):
        y = jax.nn.relu(jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                                     dimension_numbers=("NHWC", "HWIO", "NHWC")))
        return jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID").sum()
    _assert_runs_like_jax(f, x, k, rtol=1e-4, atol=1e-4)
    computation = _assert_runs_like_jax(jax.grad(f, argnums=(0, 1)), x, k, rtol=1e-4, atol=1e-4)
    assert "select-and-scatter(" in computation.as_hlo_text()


def test_gather_scatter_top_k_and_random_bits():
    a = RNG.standard_normal((5, 4)).astype(np.float32)
    i = np.array([3, 0, 4], np.int32)
    assert "gather(" in _assert_runs_like_jax(lambda a, i: a[i] * 2, a, i).as_hlo_text()
    assert "scatter(" in _assert_runs_like_jax(lambda a, i: a.at[i].add(1.0), a, i).as_hlo_text()
    _assert_runs_like_jax(lambda a: jax.lax.top_k(a, 2), a)
    key = np.array([0, 42], np.uint32)
    _assert_runs_like_jax(lambda k: jax.random.uniform(jax.random.wrap_key_data(k), (3,)), key)


def test_while_with_a_tuple_state_and_scan():
    a = RNG.standard_normal((5, 4)).astype(np.float32)
    computation = _assert_runs_like_jax(
        lambda a: jax.lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, a)), a)
    assert "while(" in computation.as_hlo_text()

    def scan(x):
        return jax.lax.scan(lambda c, xi: (c * 0.5 + xi, c.sum()), jnp.zeros(4, jnp.float32), x)
    _assert_runs_like_jax(scan, a, backends=("reference", "jax"))


def test_branches_capture_values_of_the_enclosing_region():
    a = RNG.standard_normal((3,)).astype(np.float32)

    def f(x, i):
        return jax.lax.switch(i, [lambda: x + 1, lambda: x * x.sum(), lambda: -x])
    computation = _imported(f, a, np.int32(0))
    assert "conditional(" in computation.as_hlo_text()
    for i in range(3):
        got = get_backend("reference").execute(computation, [a, np.int32(i)])[0]
        np.testing.assert_allclose(got, f(a, i), rtol=1e-6)
    got = get_backend("reference").execute(
        _imported(lambda x, p: jax.lax.cond(p, lambda: x * 2, lambda: x), a, True), [a, np.bool_(True)])[0]
    np.testing.assert_allclose(got, a * 2)


def test_jax_export_artifact_and_bytecode():
    a = RNG.standard_normal((4,)).astype(np.float32)
    exp = jax.export.export(jax.jit(lambda a: jnp.sin(a) * 2))(a)
    for program in (exp, bytes(exp.serialize()), bytes(exp.mlir_module_serialized)):
        got = get_backend("reference").execute(import_module(program), [a])[0]
        np.testing.assert_allclose(got, np.sin(a) * 2, rtol=1e-6)


def test_constants_of_every_readable_kind():
    def f(x):
        return (x + jnp.array([1.5, 2.5], np.float16), jnp.array([True, False]) & (x > 0),
                jnp.full((2,), np.uint8(7)), jnp.full((2,), jnp.inf, jnp.bfloat16))
    x = np.array([-1, 1], np.float16)
    got = get_backend("reference").execute(_imported(f, x), [x])
    np.testing.assert_array_equal(got[0], np.array([0.5, 3.5], np.float16))
    np.testing.assert_array_equal(got[1], [False, False])
    np.testing.assert_array_equal(got[2], [7, 7])
    assert got[2].dtype == np.uint8 and np.all(np.isinf(got[3].astype(np.float32)))


def test_malformed_module_is_an_op_error_with_the_parser_diagnostic():
    with pytest.raises(OpError, match="(?s)does not parse.*expected non-function type"):
        import_module("module { func.func @main( }")
    with pytest.raises(OpError, match="custom op 'stablehlo.foo' is unknown"):
        import_module("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                      "  %0 = stablehlo.foo %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}")
    with pytest.raises(OpError, match="neither MLIR bytecode nor a jax.export artifact"):
        import_module(b"\x00garbage")
    with pytest.raises(OpError, match="no function 'main'"):
        import_module("func.func private @f() {\n  return\n}")


def test_an_op_without_counterpart_is_unsupported_naming_it_and_its_location():
    text = ("func.func @main(%n: tensor<1xi32>) -> tensor<?xf32> {\n"
            "  %0 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>\n"
            "  return %0 : tensor<?xf32>\n}")
    with pytest.raises(UnsupportedError, match=r"stablehlo.dynamic_iota.*at loc\(\"-\":2:8\)"):
        import_module(text)
    text = ("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.custom_call @my_target(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
            "  return %0 : tensor<2xf32>\n}")
    with pytest.raises(UnsupportedError, match="custom_call @my_target.*at loc"):
        import_module(text)


def test_the_table_has_one_function_per_op_and_maps_the_ops_jax_emits():
    assert mapped_ops() == sorted(IMPORTERS)
    for name in ("stablehlo.add", "stablehlo.dot_general", "stablehlo.convolution", "stablehlo.reduce",
                 "stablehlo.reduce_window", "stablehlo.select_and_scatter", "stablehlo.gather", "stablehlo.scatter",
                 "stablehlo.sort", "stablehlo.while", "stablehlo.case", "stablehlo.if", "stablehlo.iota",
                 "stablehlo.convert", "stablehlo.bitcast_convert", "stablehlo.rng_bit_generator", "chlo.erf_inv",
                 "func.call", "stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.collective_permute",
                 "stablehlo.partition_id", "stablehlo.replica_id", "sdy.manual_computation"):
        assert name in IMPORTERS
    assert len(IMPORTERS) >= 90


def test_lapack_custom_calls_map_onto_the_linear_algebra_ops():
    a = RNG.standard_normal((4, 4)).astype(np.float32)
    spd = a @ a.T + 4 * np.eye(4, dtype=np.float32)
    computation = _assert_runs_like_jax(jnp.linalg.cholesky, spd, backends=("reference", "jax"), rtol=1e-4, atol=1e-5)
    assert "cholesky(" in computation.as_hlo_text()
    assert "lu(" in _assert_runs_like_jax(jnp.linalg.solve, a, a[0], rtol=1e-4, atol=1e-5).as_hlo_text()
    _assert_runs_like_jax(lambda m, v: jax.scipy.linalg.solve_triangular(m, v, lower=True), spd, a, rtol=1e-4)
    _assert_runs_like_jax(lambda m: jnp.linalg.eigh(m)[0], spd, rtol=1e-4, atol=1e-4)
    _assert_runs_like_jax(lambda m: jnp.linalg.svd(m, compute_uv=False), a, rtol=1e-4, atol=1e-4)
    _assert_runs_like_jax(lambda m: (lambda u, s, vt: (u * s) @ vt)(*jnp.linalg.svd(m, full_matrices=False)),
                          a[:, :3], rtol=1e-4, atol=1e-4)
    _assert_runs_like_jax(lambda m: (lambda q, r: q @ r)(*jnp.linalg.qr(m)), a[:, :3], rtol=1e-4, atol=1e-4)
    _assert_runs_like_jax(jax.scipy.linalg.lu_factor, a, rtol=1e-5)  # LAPACK's 1-based pivots
    failed = get_backend("reference").execute(_imported(jnp.linalg.cholesky, -spd), [-spd])[0]
    # not positive definite: info says so, and jax's lowering fills the lower triangle with NaN, as jax does
    np.testing.assert_array_equal(np.isnan(failed), np.tril(np.ones((4, 4), bool)))
    np.testing.assert_array_equal(failed, jnp.linalg.cholesky(-spd))


def test_complex_bf16_and_f8_constants_are_read_through_stablehlos_interpreter():
    text = """func.func @main() -> (tensor<2xcomplex<f32>>, tensor<2xbf16>, tensor<3xf8E4M3FN>) {
      %0 = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
      %1 = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xbf16>
      %2 = stablehlo.constant dense<[1.5, 2.0, 448.0]> : tensor<3xf8E4M3FN>
      return %0, %1, %2 : tensor<2xcomplex<f32>>, tensor<2xbf16>, tensor<3xf8E4M3FN>
    }"""
    c, bf, f8 = get_backend("reference").execute(import_module(text), [])
    np.testing.assert_array_equal(c, np.array([1 + 2j, 3 - 4j], np.complex64))
    assert str(bf.dtype) == "bfloat16" and bf.astype(np.float32).tolist() == [1.5, -2.0]
    assert str(f8.dtype) == "float8_e4m3fn" and f8.astype(np.float32).tolist() == [1.5, 2.0, 448.0]


def test_batch_norm_map_and_infinity_tests():
    text = """func.func @main(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>,
        tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>) {
      %y, %m, %v = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 0.0 : f32, feature_index = 1 : i64}
          : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
      %sq = "stablehlo.map"(%x) ({
      ^bb0(%a: tensor<f32>):
        %p = stablehlo.multiply %a, %a : tensor<f32>
        stablehlo.return %p : tensor<f32>
      }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %i = chlo.is_inf %x : tensor<2x3xf32> -> tensor<2x3xi1>
      %n = chlo.is_neg_inf %x : tensor<2x3xf32> -> tensor<2x3xi1>
      return %y, %m, %sq, %i, %n : tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi1>
    }"""
    x = np.array([[1, 2, np.inf], [3, -np.inf, 5]], np.float32)
    y, mean, sq, is_inf, is_neg_inf = get_backend("reference").execute(
        import_module(text), [x, np.ones(3, np.float32), np.zeros(3, np.float32)])
    np.testing.assert_allclose(y[:, 0], [-1, 1])
    np.testing.assert_allclose(mean[0], 2)
    np.testing.assert_array_equal(sq, x * x)
    np.testing.assert_array_equal(is_inf, np.isinf(x))
    np.testing.assert_array_equal(is_neg_inf, x == -np.inf)


def test_approx_top_k_custom_call_with_its_comparator_function():
    x = RNG.standard_normal((3, 8)).astype(np.float32)
    computation = _assert_runs_like_jax(lambda x: jax.lax.approx_max_k(x, 2), x, backends=("reference", "jax"))
    assert "approx-top-k" in computation.as_hlo_text()


def test_cusolver_custom_calls_of_a_program_lowered_for_cuda():
    a = RNG.standard_normal((4, 4)).astype(np.float32)
    spd = a @ a.T + 4 * np.eye(4, dtype=np.float32)
    cases = [(jnp.linalg.cholesky, (spd,)), (jnp.linalg.solve, (a, a[0])), (jax.scipy.linalg.lu, (a,)),
             (lambda m: jnp.linalg.eigh(m)[0], (spd,)),
             (lambda m: (lambda u, s, vt: (u * s) @ vt)(*jnp.linalg.svd(m, full_matrices=False)), (a[:, :3],)),
             (lambda m: (lambda q, r: q @ r)(*jnp.linalg.qr(m)), (a[:, :3],))]
    for f, args in cases:
        text = jax.jit(f).trace(*args).lower(lowering_platforms=("cuda",)).as_text()  # no GPU needed
        assert "@cusolver_" in text
        want = jax.tree_util.tree_leaves(jax.jit(f)(*args))
        got = get_backend("reference").execute(import_module(text), list(args))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def _mesh(shape, names):
    get_backend("jax")  # gives jax its 8 CPU devices, unless jax's backends started before
    if len(jax.devices()) < 8:
        pytest.skip("jax started with fewer than 8 devices")
    return Mesh(np.array(jax.devices()[:8]).reshape(shape), names)


def test_shard_map_on_a_2x4_mesh_slices_by_partition_id_and_gathers_back():
    mesh = _mesh((2, 4), ("a", "b"))
    x = np.arange(32, dtype=np.float32).reshape(4, 8)

    def body(x):  # each device's (2, 2) block
        return x * 2, jax.lax.psum(x, "b"), jax.lax.all_gather(x, "a", tiled=True)

    f = jax.shard_map(body, mesh=mesh, in_specs=P("a", "b"), out_specs=(P("a", "b"), P("a", None), P(None, "b")),
                      check_vma=False)
    computation = _imported(f, x)
    blocks = x.reshape(2, 2, 4, 2)  # [a, row, b, column]
    want = [2 * x, blocks.sum(axis=2).reshape(4, 2), x]  # psum over b: the row of blocks summed
    for name in ("reference", "jax"):
        per_device = get_backend(name).execute(computation, [[x]] * 8, replicas=1, partitions=8)
        for d in range(8):
            for got, expected in zip(per_device[d], want):
                np.testing.assert_array_equal(got, expected)
    assert "partition-id" in computation.as_hlo_text() and "all-gather" in computation.as_hlo_text()


def test_psum_scatter_and_all_to_all_of_a_shard_map():
    mesh = _mesh((8,), ("d",))
    x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)

    def body(x):  # each device's row (1, 16)
        return jax.lax.psum_scatter(x, "d", scatter_dimension=1, tiled=True), jax.lax.all_to_all(x, "d", 1, 0,
                                                                                                tiled=True)

    f = jax.shard_map(body, mesh=mesh, in_specs=P("d"), out_specs=(P(None, "d"), P("d")), check_vma=False)
    computation = _imported(f, x)
    # psum_scatter: device d gets columns 2d, 2d+1 of the sum of the rows; all_to_all: device d's row split in 8
    # pieces of 2, piece k to device k, stacked by source: device d gets x[:, 2d:2d+2]
    want = [x.sum(axis=0, keepdims=True), x.reshape(8, 8, 2).transpose(1, 0, 2).reshape(64, 2)]
    for name in ("reference", "jax"):
        per_device = get_backend(name).execute(computation, [[x]] * 8, replicas=1, partitions=8)
        for got, expected in zip(per_device[3], want):
            np.testing.assert_array_equal(got, expected)
    assert "reduce-scatter" in computation.as_hlo_text() and "all-to-all" in computation.as_hlo_text()


def test_a_shard_map_manual_over_part_of_its_mesh_is_refused():
    mesh = _mesh((2, 4), ("a", "b"))
    f = jax.shard_map(lambda x: x * 2, mesh=mesh, in_specs=P("a"), out_specs=P("a"), axis_names={"a"},
                      check_vma=False)
    with pytest.raises(UnsupportedError, match=r"manual axes \['a'\].*only programs manual over the whole mesh"):
        _imported(f, np.ones((4, 8), np.float32))
