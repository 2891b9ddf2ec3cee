"""A backend that crashes, hangs, exits or misbehaves on one case costs that case, never the run.

The backends (tests/support/misbehaving_backends.py) misbehave only on ``Neg/golden/scalar_f64``; every run
below restricts itself to the golden cases of Add and Neg, so that each test takes a few seconds.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

import specs
from backend import ExecutionError, UnsupportedError, XlaBuilder, get_backend, ops
from backend.hlo.shape import Shape
from conformance import cli
from conformance.generate import cases_for
from conformance.journal import read_journal
from conformance.runner import CRASHED, FAILED, PASSED, TIMED_OUT, run_cases

TARGET = "Neg/golden/scalar_f64"
RUN = ["run", "--ops", "Add,Neg", "--kinds", "golden"]


def _run_cli(capsys, tmp_path, backend, *extra):
    report = tmp_path / "r.json"
    code = cli.main([*RUN, "--backend", f"tests.support.misbehaving_backends:{backend}", "--report", str(report),
                     *extra])
    out = capsys.readouterr().out
    cases = {c["id"]: c for c in json.loads(report.read_text())["cases"]}
    return code, out, cases


def _assert_only_target(cases, status, words):
    """The report is complete, the target case has ``status`` and a message with ``words``, the rest passed."""
    target = [cid for cid in cases if cid.startswith(TARGET)]
    assert target, sorted(cases)
    for cid, c in cases.items():
        if cid in target:
            assert c["status"] == status, c
            assert words in c["message"], c["message"]
        else:
            assert c["status"] == PASSED, c
    assert {c["op"] for c in cases.values()} == {"Add", "Neg"}


def test_an_exiting_backend_costs_one_case(capsys, tmp_path):
    code, out, cases = _run_cli(capsys, tmp_path, "EXITS", "-j", "1")
    assert code == 1
    assert f"CRASHED {TARGET}" in out and "reproduction" in out
    _assert_only_target(cases, CRASHED, "sys.exit(3)")


def test_a_hanging_case_is_killed_after_the_timeout(capsys, tmp_path):
    # 10 s, not less: a case that does not hang must not be killed when a loaded machine compiles slowly
    code, out, cases = _run_cli(capsys, tmp_path, "HANGS", "-j", "1", "--timeout", "10")
    assert code == 1
    _assert_only_target(cases, TIMED_OUT, "no result after 10 s")
    assert all(c["seconds"] < 60 for c in cases.values())


def test_a_bug_of_the_suite_in_a_worker_is_reported_with_its_traceback(capsys, tmp_path):
    code, out, cases = _run_cli(capsys, tmp_path, "SUITE_BUG", "-j", "1")
    assert code == 1
    _assert_only_target(cases, CRASHED, "a bug of the suite, not of the backend")
    target = next(c for cid, c in cases.items() if cid.startswith(TARGET))
    assert "RuntimeError: the judge's own bug" in target["message"] and "Traceback" in target["message"]


@pytest.mark.parametrize("backend,words", [
    ("SUPPORTS_RAISES", "supports() raised KeyError"),
    ("RETURNS_NONE", "execute() returned NoneType"),
    ("LOWERING_RAISES", "ZeroDivisionError"),
])
def test_a_misbehaving_backend_fails_the_case(capsys, tmp_path, backend, words):
    code, out, cases = _run_cli(capsys, tmp_path, backend, "--no-isolation")
    assert code == 1
    _assert_only_target(cases, FAILED, words)


def test_a_lowering_bug_is_an_execution_error_not_unsupported():
    b = XlaBuilder("neg")
    ops.Neg(ops.Parameter(b, 0, Shape.array_shape("f64", ()), "x"))
    backend = get_backend("tests.support.misbehaving_backends:LOWERING_RAISES")
    with pytest.raises(ExecutionError, match="failed in Neg: ZeroDivisionError") as info:
        backend.execute(b.build(), [np.float64(1)])
    assert not isinstance(info.value, UnsupportedError)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    # the failure report carries the head of the traceback, down to the lowering's own line
    assert "1 // 0" in get_failure_message(backend)


def get_failure_message(backend):
    case = next(c for c in cases_for(specs.get("Neg")) if c.id.startswith(TARGET))
    [result] = run_cases([case], backend)
    assert result.status == FAILED
    return result.message


def test_results_are_journaled_and_a_run_resumes(capsys, tmp_path):
    journal = tmp_path / "run.jsonl"
    assert cli.main(["run", "--ops", "Add", "--kinds", "golden", "--backend", "reference", "--no-isolation",
                     "--results", str(journal)]) == 0
    first = read_journal(str(journal))
    assert first and all(cid.startswith("Add/") for cid in first)
    with open(journal, "a") as f:
        f.write('{"id": "Neg/golden/fl')  # a run killed while writing a line
    report = tmp_path / "r.json"
    assert cli.main([*RUN, "--backend", "reference", "--no-isolation", "--resume", str(journal),
                     "--report", str(report)]) == 0
    capsys.readouterr()
    lines = journal.read_text().splitlines()
    assert lines[len(first)] == '{"id": "Neg/golden/fl'  # the torn line stays alone on its line
    ids = [json.loads(line)["id"] for i, line in enumerate(lines) if i != len(first)]
    assert len(ids) == len(set(ids)), "a resumed run must not repeat finished cases"
    assert set(ids) == {c["id"] for c in json.loads(report.read_text())["cases"]}
    assert any(cid.startswith("Neg/") for cid in ids)


def test_resume_refuses_another_backends_results(capsys, tmp_path):
    journal = tmp_path / "run.jsonl"
    journal.write_text(json.dumps({"id": "Add/golden/same_shape", "status": "passed", "backend": "jax"}) + "\n")
    assert cli.main([*RUN, "--backend", "reference", "--no-isolation", "--resume", str(journal)]) == 2
    assert "backend jax" in capsys.readouterr().err


def test_the_command_line_survives_an_abort(tmp_path):
    junit, md, report = tmp_path / "r.xml", tmp_path / "r.md", tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "conformance", *RUN, "--backend",
                           "tests.support.misbehaving_backends:ABORTS", "-j", "2", "--junit", str(junit), "--markdown",
                           str(md), "--report", str(report)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "crashed" in proc.stdout and f"CRASHED {TARGET}" in proc.stdout
    _assert_only_target({c["id"]: c for c in json.loads(report.read_text())["cases"]}, CRASHED, "SIGABRT")
    assert 'type="crashed"' in junit.read_text()
    assert "| crashed |" in md.read_text() and f"### {TARGET}" in md.read_text()
