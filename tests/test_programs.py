"""The program corpus (conformance/programs/): every program, exported from jax, passes on reference and jax, and
a backend with one deliberately wrong op is localised to that op inside each program (inside the loop body for the
LSTM), with a reproduction that runs as printed."""

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from backend import get_backend
from conformance.cases import program_case
from conformance.check_program import check_corpus_program, load_inputs, load_program, program_devices, text_report
from conformance.cli import main
from conformance.journal import read_journal, result_from_record
from conformance.programs import names, paths
from conformance.programs.sources import PROGRAMS
from conformance.render import render
from conformance.report import build_report, load_report, validate_report
from conformance.runner import run_cases
from conformance.selection import KINDS
from tests.support.program_mutants import BROKEN, spec

CORPUS = ["attention", "conv", "fft_conv", "linalg", "lstm", "mlp", "random_rbg", "resnet_block", "sampling",
          "sharded", "transformer_grad"]


def _program(name):
    mlir, npz = paths(name)
    comp = load_program(mlir)
    return comp, load_inputs(npz, comp)


def test_the_corpus_has_its_programs_and_their_sources():
    assert names() == CORPUS
    assert sorted(PROGRAMS) == CORPUS
    for name in CORPUS:
        mlir, npz = paths(name)
        assert mlir.read_text().startswith(f"// {name}: ")
        assert npz.exists()


@pytest.mark.parametrize("name", CORPUS)
@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_every_program_passes(name, backend):
    report = check_corpus_program(name, get_backend(backend))
    assert report.status == "passed", report.outputs
    assert report.outputs and all(o["status"] == "passed" for o in report.outputs)
    assert report.seconds < 60


def test_the_sharded_program_runs_on_8_devices_as_worked_out_by_hand():
    comp, (x, w, y) = _program("sharded")
    assert program_devices(paths("sharded")[0]) == (1, 8)
    h = np.tanh(x.astype(np.float64) @ w)
    grad = x.T.astype(np.float64) @ (2 * (h - y) * (1 - h**2)) / 16
    want = [np.sum((h - y) ** 2) / 16, w - 0.1 * grad, h, np.roll(h.reshape(8, 2, 3), 1, axis=0).reshape(16, 3)]
    for backend in ("reference", "jax"):
        per_device = get_backend(backend).execute(comp, [[x, w, y]] * 8, replicas=1, partitions=8)
        for d in (0, 7):  # every device holds the global results (the sharded ones gathered back)
            for got, expected in zip(per_device[d], want):
                np.testing.assert_allclose(got, expected, rtol=2e-5, atol=1e-6)


def test_the_reference_result_of_a_program_is_jaxs():
    comp, inputs = _program("mlp")
    fn = PROGRAMS["mlp"][0]
    want = fn(*inputs)
    got = get_backend("reference").execute(comp, inputs)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    np.testing.assert_array_equal(got[-1], want[2])  # the argmax


@pytest.mark.parametrize("name", CORPUS)
def test_a_broken_op_is_localised_in_every_program(name):
    get_backend("reference"), get_backend("jax")  # the built-in backends first
    backend = get_backend(spec(name))
    _, opcode, inside = BROKEN[name]
    report = check_corpus_program(name, backend, backend_spec=spec(name))
    assert report.status == "failed", text_report(report)
    found = report.localised
    assert found is not None and found.opcode == opcode, (found, report.message)
    assert found.name.startswith(inside)
    assert f"get_backend({spec(name)!r})" in found.reproduction
    broken, reference = _printed(found.reproduction), _printed(found.reproduction.replace(spec(name), "reference"))
    assert broken.startswith("[") and broken != reference
    LOCALISED[name] = (found.reproduction, report.seconds)


#: name -> (the reproduction, the seconds check-program took), from the test above.
LOCALISED: dict[str, tuple[str, float]] = {}


def _printed(snippet: str) -> str:
    """What ``snippet`` prints, run in a namespace of its own."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(snippet, {})
    return printed.getvalue().strip()


#: Runs each reproduction as printed, then with the reference in place of the broken backend: both printouts.
_FRESH = """
import contextlib, io, json, sys
out = {}
for name, (snippet, spec) in json.load(sys.stdin).items():
    printed = []
    for text in (snippet, snippet.replace(spec, "reference")):
        with contextlib.redirect_stdout(io.StringIO()) as shown:
            exec(text, {})
        printed.append(shown.getvalue().strip())
    out[name] = printed
print(json.dumps(out))
"""


def test_every_reproduction_runs_as_printed_in_a_fresh_interpreter():
    """Each program's reproduction, run in a new Python process (every snippet in a namespace of its own), prints the
    broken backend's value, which differs from the reference's it prints after it; the time to check each program
    with its broken op localised stays under a minute."""
    missing = [n for n in CORPUS if n not in LOCALISED]
    for name in missing:  # run alone (-k), or on another xdist worker: localise here
        report = check_corpus_program(name, get_backend(spec(name)), backend_spec=spec(name))
        LOCALISED[name] = (report.localised.reproduction, report.seconds)
    root = Path(__file__).resolve().parent.parent
    snippets = {n: [r, spec(n)] for n, (r, _) in LOCALISED.items()}
    proc = subprocess.run([sys.executable, "-c", _FRESH], input=json.dumps(snippets), capture_output=True, text=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = json.loads(proc.stdout.splitlines()[-1])
    assert sorted(printed) == CORPUS
    for name, (shown, reference) in printed.items():
        assert shown.startswith("[") and reference.startswith("[") and shown != reference, (name, shown[:300])
    assert all(seconds < 60 for _, seconds in LOCALISED.values()), LOCALISED


def test_conformance_run_runs_the_corpus_as_program_cases(tmp_path, capsys):
    report_path, md, html_path = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.html"
    code = main(["run", "--backend", "reference", "--kinds", "program", "--no-isolation", "-q", "--report",
                 str(report_path), "--markdown", str(md), "--html", str(html_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    report = load_report(str(report_path))
    assert [c["id"] for c in report["cases"]] == [f"program/{n}" for n in CORPUS]
    assert report["totals"] == {"passed": len(CORPUS)} and report["ops"]["program"]["cases"] == len(CORPUS)
    assert all(c["kind"] == "program" and c["program"]["outputs"] for c in report["cases"])
    assert "programs:\n  attention: passed (" in out
    assert "| transformer_grad | passed |" in md.read_text()
    assert html_path.read_text().count("<tr class='ok'><td>") >= len(CORPUS)


def test_programs_run_with_every_op_and_not_with_some(tmp_path, capsys):
    assert main(["run", "--backend", "reference", "--ops", "Abs", "--kinds", "golden", "--no-isolation", "-q",
                 "--report", str(tmp_path / "a.json")]) == 0
    assert {c["kind"] for c in load_report(str(tmp_path / "a.json"))["cases"]} == {"golden"}
    assert "program" in KINDS  # the default --kinds: a run of every op runs the corpus too
    assert main(["run", "--backend", "reference", "--kinds", "program", "--cases", "program/fft_conv", "-q",
                 "--no-isolation",
                 "--report", str(tmp_path / "b.json")]) == 0
    assert [c["id"] for c in load_report(str(tmp_path / "b.json"))["cases"]] == ["program/fft_conv"]


def test_a_program_case_that_fails_carries_its_localised_op_into_every_format():
    backend = get_backend(spec("fft_conv"))
    (result,) = run_cases([program_case("fft_conv")], backend, backend_spec=spec("fft_conv"))
    assert result.status == "failed" and result.program["localised"]["opcode"] == "Fft"
    assert f"get_backend({spec('fft_conv')!r})" in result.reproduction
    report = build_report([result], backend, seconds=1.0, seed=0)
    assert validate_report(report) == []
    found = result.program["localised"]["name"]
    text = render(report, "text")
    assert "fft_conv: failed (30 instructions, " in text and f"{found} (Fft)" in text
    assert "| fft_conv | failed | 30 |" in render(report, "md") and "## Failures" in render(report, "md")
    page = render(report, "html")
    assert f"{found} (Fft)" in page and "import_module" in page  # the reproduction
    assert "<failure" in render(report, "junit")


def test_a_program_case_survives_the_journal_and_the_isolated_worker(tmp_path):
    journal = tmp_path / "run.jsonl"
    code = main(["run", "--backend", "reference", "--kinds", "program", "--cases", "program/fft_conv", "-q", "-j", "1",
                 "--results", str(journal), "--report", str(tmp_path / "r.json")])
    assert code == 0
    (case,) = load_report(str(tmp_path / "r.json"))["cases"]  # run in a worker process: its details came back
    assert case["program"]["instructions"] == 30 and len(case["program"]["outputs"]) == 4
    (record,) = read_journal(str(journal)).values()
    result = result_from_record(program_case("fft_conv"), record)
    assert result.status == "passed" and result.program == case["program"]
