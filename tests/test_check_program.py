"""``python -m conformance check-program``: a jax program judged on a backend against the reference, and a backend
with one wrong op localised to that op inside the imported program, with a reproduction that runs as printed."""

import contextlib
import io

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from backend import PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.backends import register_backend
from backend.stablehlo_import import import_module as load_program_text
from conformance.check_program import check_program, draw_inputs, load_program, one_op, text_report
from conformance.cli import main
from conformance.report import load_report
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


def test_a_jax_program_passes_on_jax_with_the_runs_reports(mlp_files, tmp_path):
    paths = {flag: tmp_path / f"r.{ext}" for flag, ext in (("--report", "json"), ("--markdown", "md"),
                                                           ("--html", "html"), ("--junit", "xml"))}
    code, out = _run_cli(mlp_files / "mlp.mlir", "--backend", "jax", "--inputs", mlp_files / "mlp.npz",
                         *[str(x) for pair in paths.items() for x in pair])
    assert code == 0, out
    assert "passed on jax" in out
    report = load_report(str(paths["--report"]))  # the run's report, valid against its schema
    assert report["backend"]["name"] == "jax" and report["totals"] == {"passed": 1}
    assert report["options"]["kinds"] == ["program"] and report["ops"]["program"]["cases"] == 1
    (case,) = report["cases"]
    assert (case["id"], case["kind"], case["name"], case["status"]) == ("program/mlp", "program", "mlp", "passed")
    assert [o["status"] for o in case["program"]["outputs"]] == ["passed", "passed"]
    assert case["program"]["instructions"] > 30 and "localised" not in case["program"]
    assert "| mlp | passed |" in paths["--markdown"].read_text()
    assert "<h2>Programs</h2>" in paths["--html"].read_text()
    assert 'name="program/mlp"' in paths["--junit"].read_text()


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
    md = tmp_path / "r.md"
    code, out = _run_cli(mlp_files / "mlp.mlir", "--backend", mutant.name, "--inputs", mlp_files / "mlp.npz",
                         "--report", tmp_path / "r.json", "--markdown", md)
    assert code == 1 and "Sub" in out
    (case,) = load_report(str(tmp_path / "r.json"))["cases"]
    assert case["status"] == "failed" and case["program"]["localised"]["opcode"] == "Sub"
    assert case["program"]["localised"]["index"] == first_sub and case["reproduction"] == found.reproduction
    assert f"| mlp | failed | {len(comp.instructions)} |" in md.read_text()
    assert f"{found.name} (Sub)" in md.read_text() and "## Failures" in md.read_text()


def test_a_reducer_at_fault_is_named_with_the_op_inside_it():
    # argmax is a Reduce whose reducer selects on scalar predicates: the mutant's Select is wrong only there
    mutant = mutant_backend("select_uniform_pred_swapped")
    x = np.array([[0.5, 2.0, -1.0, 3.0], [4.0, -2.0, 1.0, 0.0]], np.float32)
    comp = load_program_text(jax.jit(lambda x: jnp.argmax(x, axis=1)).lower(x).as_text())
    np.testing.assert_array_equal(get_backend("reference").execute(comp, [x])[0], [3, 0])
    report = check_program(comp, mutant, [x], "argmax")
    assert report.status == "failed"
    found = report.localised
    assert found.opcode == "Reduce" and found.region == "computation"
    inner = found.region_finding
    assert inner is not None and inner.opcode == "Select" and inner.name.startswith(f"{found.name} > computation: ")
    assert "its region computation is at fault" in text_report(report)
    assert report.details()["localised"]["region_finding"]["opcode"] == "Select"


def test_an_op_that_differs_by_its_own_fault_names_no_region():
    # a stable sort whose payload takes another order than its keys: the comparator (LT) is right, the Sort is not
    mutant = mutant_backend("sort_operands_permuted_apart")
    keys, payload = np.array([1, 0, 1, 0], np.int32), np.array([0, 1, 2, 3], np.int32)
    sort = jax.jit(lambda k, v: jax.lax.sort((k, v), num_keys=1, is_stable=True))
    comp = load_program_text(sort.lower(keys, payload).as_text())
    got = get_backend("reference").execute(comp, [keys, payload])
    np.testing.assert_array_equal(got[1], [1, 3, 0, 2])  # stable: the equal keys keep their order
    report = check_program(comp, mutant, [keys, payload], "sort")
    assert report.status == "failed" and report.localised.opcode == "Sort"
    assert report.localised.region == "" and report.localised.region_finding is None


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
    assert report.outputs == [] and report.localised is None


class _Refusing:
    """The reference, which says it supports no program (as a backend's supports() may)."""

    name = "refusing"

    def supports(self, computation):
        return "this backend runs no program"

    def execute(self, computation, args, **options):
        return get_backend("reference").execute(computation, args, **options)


def test_check_program_of_an_unsupported_program_exits_2_with_its_report(mlp_files, tmp_path):
    get_backend("reference"), get_backend("jax")  # the built-in backends first
    register_backend("refusing", _Refusing)
    code, out = _run_cli(mlp_files / "mlp.mlir", "--backend", "refusing", "--report", tmp_path / "r.json")
    assert code == 2, out
    (case,) = load_report(str(tmp_path / "r.json"))["cases"]
    assert case["status"] == "unsupported"
    assert case["message"] == "backend 'refusing' does not support program mlp: this backend runs no program"


def test_outputs_that_differ_only_by_an_allowed_outcome_are_impl_defined():
    # an integer divided by zero: the documents leave the quotient to the implementation (the mutant gives 0)
    mutant = mutant_backend("div_by_zero_zero")
    x, y = np.array([7, -8, 9], np.int32), np.array([2, 0, 3], np.int32)
    comp = load_program_text(jax.jit(lambda x, y: jax.lax.div(x, y)).lower(x, y).as_text())
    assert list(mutant.execute(comp, [x, y])[0]) == [3, 0, 3]
    assert get_backend("reference").execute(comp, [x, y])[0][1] != 0
    report = check_program(comp, mutant, [x, y], "div")
    assert report.status == "impl-defined" and report.localised is None
    assert report.allowed.startswith("div.") and "(Div)" in report.allowed and "division_by_zero" in report.message
