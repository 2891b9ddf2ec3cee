"""``python -m conformance check-program``: a jax program judged on a backend against the reference, and a backend
with one wrong op localised to that op inside the imported program, with a reproduction that runs as printed."""

import contextlib
import io
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from backend import PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.backends import register_backend
from conformance.check_program import check_program, draw_inputs, load_program, one_op, text_report
from conformance.cli import main
from tests.support.mutant_backends import mutant_backend

RNG = np.random.default_rng(1)
X = RNG.standard_normal((4, 3)).astype(np.float32)
W = RNG.standard_normal((3, 5)).astype(np.float32)
Y = jax.nn.one_hot(np.array([0, 2, 4, 1]), 5).astype(np.float32)


def _mlp(x, w, y):
    loss = lambda w: -(jax.nn.log_softmax(jnp.tanh(x @ w)) * y).sum() / x.shape[0]  # noqa: E731
    return loss(w), jax.grad(loss)(w)


@pytest.fixture(scope="module")
def mlp_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("program")
    (folder / "mlp.mlir").write_text(jax.jit(_mlp).lower(X, W, Y).as_text())
    np.savez(folder / "mlp.npz", arg0=X, arg1=W, arg2=Y)
    return folder


def _run_cli(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check-program", *map(str, argv)])
    return code, out.getvalue()


def test_a_jax_program_passes_on_jax_with_a_json_report(mlp_files, tmp_path):
    report_path = tmp_path / "r.json"
    code, out = _run_cli(mlp_files / "mlp.mlir", "--backend", "jax", "--inputs", mlp_files / "mlp.npz",
                         "--report", report_path)
    assert code == 0, out
    assert "passed on jax" in out
    report = json.loads(report_path.read_text())
    assert report["status"] == "passed" and report["backend"] == "jax" and report["localised"] is None
    assert [o["status"] for o in report["outputs"]] == ["passed", "passed"]
    assert report["ops"] > 30


def test_drawn_inputs_follow_the_parameter_shapes_and_the_seed(mlp_files):
    comp = load_program(mlp_files / "mlp.mlir")
    a, b = draw_inputs(comp, seed=3), draw_inputs(comp, seed=3)
    assert [x.shape for x in a] == [(4, 3), (3, 5), (4, 5)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], draw_inputs(comp, seed=4)[0])
    code, out = _run_cli(mlp_files / "mlp.mlir", "--backend", "reference", "--seed", "3")
    assert code == 0, out


def test_a_wrong_op_is_localised_inside_the_imported_program(mlp_files, tmp_path):
    mutant = mutant_backend("sub_swapped")  # Sub computes rhs - lhs
    register_backend(mutant.name, lambda: mutant)
    comp = load_program(mlp_files / "mlp.mlir")
    report = check_program(comp, mutant, [X, W, Y], "mlp")
    assert report.status == "failed"
    found = report.localised
    assert found is not None and found.opcode == "Sub"
    first_sub = next(i for i, inst in enumerate(comp.instructions) if inst.opcode == "Sub")
    assert found.index == first_sub  # the first Sub of the program, not an op downstream of it
    assert "subtract(" in found.hlo or "sub" in found.hlo
    assert "first op that differs on identical inputs" in text_report(report)
    # the reproduction runs as printed and shows the wrong value against the reference's
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(found.reproduction, namespace)
    inst = comp.instructions[first_sub]
    alone = one_op(comp, inst)
    assert "sub" in alone.as_hlo_text()
    got = mutant.execute(namespace["computation"], namespace["args"])[0]
    want = get_backend("reference").execute(namespace["computation"], namespace["args"])[0]
    np.testing.assert_allclose(got, -want, rtol=1e-6)
    assert "array(" in printed.getvalue()
    code, out = _run_cli(mlp_files / "mlp.mlir", "--backend", mutant.name, "--inputs", mlp_files / "mlp.npz")
    assert code == 1 and "Sub" in out


def test_an_unreadable_program_or_inputs_exit_2(tmp_path, mlp_files, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text("module { func.func @main( }")
    code, _ = _run_cli(bad, "--backend", "jax")
    assert code == 2 and "does not parse" in capsys.readouterr().err
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, arg0=X)
    code, _ = _run_cli(mlp_files / "mlp.mlir", "--backend", "jax", "--inputs", wrong)
    assert code == 2 and "has 1 arrays, the program takes 3" in capsys.readouterr().err


def test_a_program_the_backend_does_not_support_is_reported_so(tmp_path):
    # jax has no complex Cbrt kernel: the jax backend refuses it (supports() says so)
    b = XlaBuilder("cbrt")
    ops.Cbrt(ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.C64, (2,)), "x"))
    report = check_program(b.build(), get_backend("jax"), [np.array([1 + 1j, 8], np.complex64)], "cbrt")
    assert report.status == "unsupported" and "Cbrt" in report.message
