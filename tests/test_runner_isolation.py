"""A backend that crashes, hangs, exits or misbehaves on one case costs that case, never the run.

The backends (tests/support/misbehaving_backends.py) misbehave only on ``Neg/golden/scalar_f64``; every run
below restricts itself to the golden cases of Add and Neg, so that each test takes a few seconds.
"""

import json
import multiprocessing
import subprocess
import sys
import xml.etree.ElementTree as ET

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


def test_a_resumed_failure_gets_this_versions_reproduction(capsys, tmp_path):
    """A journal written by an earlier version holds its reproductions; the report of a resumed run prints the ones
    this version writes (which run as printed), naming the backend as the run names it."""
    from conformance.build import reproduction

    spec = "tests.test_builder:DOUBLER"
    case = next(c for c in cases_for(specs.get("Add")) if c.kind == "golden")
    journal = tmp_path / "old.jsonl"
    stale = "b = XlaBuilder('add')\nx = np.array([1.0], dtype=np.float8_e5m2)  # what an old version wrote"
    journal.write_text(json.dumps({"id": case.id, "op": "Add", "kind": "golden", "backend": "doubler", "profile": "spec",
                                   "seed": 0, "status": "failed", "message": "old", "reproduction": stale}) + "\n")
    report = tmp_path / "r.json"
    cli.main(["run", "--backend", spec, "--cases", case.id, "--no-isolation", "-q", "--resume", str(journal),
              "--report", str(report)])
    capsys.readouterr()
    [printed] = [c for c in json.loads(report.read_text())["cases"] if c["id"] == case.id]
    assert printed["status"] == "failed" and printed["message"] == "old"  # the journal's verdict, not run again
    assert printed["reproduction"] == reproduction(case, spec) != stale
    assert f"get_backend({spec!r})" in printed["reproduction"]


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


# -- the run is never lost: odd messages, another seed, signals, a backend that dies loading, bad journals --------
@pytest.mark.parametrize("isolation", [["--no-isolation"], ["-j", "1"]])
def test_a_message_with_a_lone_surrogate_or_control_characters_keeps_the_run(capsys, tmp_path, isolation):
    paths = {fmt: tmp_path / f"r.{fmt}" for fmt in ("xml", "md", "html")}
    code, out, cases = _run_cli(capsys, tmp_path, "ODD_MESSAGE", "--junit", str(paths["xml"]), "--markdown",
                                str(paths["md"]), "--html", str(paths["html"]), *isolation)
    assert code == 1
    _assert_only_target(cases, FAILED, "RuntimeError: bad \ufffd value\\x01\\x0c\\x1b[31m red <&> \ufffd")
    assert f"FAILED {TARGET}" in out and "\x1b" not in out
    root = ET.parse(paths["xml"]).getroot()  # parseable: no control character in the XML
    failure = root.find(f".//testcase[@name='{TARGET}/param']/failure")
    assert "bad \ufffd value\\x01" in failure.get("message")
    assert "&#65533; value" in paths["md"].read_text(encoding="utf-8")
    assert "red &lt;&amp;&gt;" in paths["html"].read_text(encoding="utf-8")


def test_junit_of_a_saved_report_with_control_characters_parses():
    from conformance.render import render
    report = {"backend": {"name": "b\x01"}, "profile": "spec", "seconds": 1.0, "ops": {"Add": {"seconds": 0.5}},
              "cases": [{"id": "Add/golden/x\x02", "op": "Add", "status": "failed", "message": "m\x00\udc80",
                         "seconds": 0.1, "reproduction": "r\x1b"}]}
    root = ET.fromstring(render(report, "junit").encode())
    failure = root.find(".//failure")
    assert failure.get("message") == "m\\x00\ufffd" and failure.text == "r\\x1b"


def test_resume_refuses_a_journal_of_another_seed(capsys, tmp_path):
    journal = tmp_path / "run.jsonl"
    base = ["run", "--ops", "Add", "--kinds", "generated", "--backend", "reference", "--no-isolation", "-q"]
    assert cli.main([*base, "--seed", "1", "--results", str(journal)]) == 0
    capsys.readouterr()
    before = journal.read_text()
    assert cli.main([*base, "--seed", "2", "--resume", str(journal)]) == 2
    err = capsys.readouterr().err
    assert "--seed 1, not --seed 2" in err and str(journal) in err
    assert journal.read_text() == before  # nothing appended
    assert cli.main([*base, "--seed", "1", "--resume", str(journal)]) == 0  # the same seed resumes
    # a journal of an earlier version (no seed in its records) cannot tell which inputs its cases had
    journal.write_text(json.dumps({"id": "Add/golden/same_shape/param", "status": "passed", "backend": "reference"})
                       + "\n")
    assert cli.main([*base, "--seed", "0", "--resume", str(journal)]) == 2
    assert "without the seed" in capsys.readouterr().err


def _children(pid):
    """The pids of the worker processes whose parent is ``pid`` (Linux /proc; not multiprocessing's resource
    tracker)."""
    import os
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        command = f.read()
                except OSError:
                    continue
                if b"spawn_main" in command:
                    out.append(int(entry))
    return out


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGKILL"])
def test_a_signal_to_the_command_line_ends_its_busy_workers(tmp_path, sig):
    import os
    import signal
    import time
    journal = tmp_path / "run.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "conformance", *RUN, "--backend",
                             "tests.support.misbehaving_backends:HANGS", "-j", "2", "--batch", "1", "-q", "--timeout", "600",
                             "--results", str(journal)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        workers = []
        # busy: the other cases are done and both workers sleep in the two hanging cases (param and const)
        while time.monotonic() < deadline:
            workers = _children(proc.pid)
            done = len(journal.read_text().splitlines()) if journal.exists() else 0
            if workers and done >= len([c for op in ("Add", "Neg") for c in cases_for(specs.get(op))
                                        if c.kind == "golden"]) - 2:
                break
            time.sleep(0.2)
        assert len(workers) == 2 and proc.poll() is None and time.monotonic() < deadline
        os.kill(proc.pid, getattr(signal, sig))
        proc.wait(30)
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [w for w in workers if _alive(w)]
        for w in left:
            os.kill(w, signal.SIGKILL)
        assert not left, f"workers {left} outlived the command line"
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("backend,words", [("ABORTS_ON_CONSTRUCTION", "killed by signal SIGABRT"),
                                           ("RAISES_ON_CONSTRUCTION", "RuntimeError: no device found")])
def test_a_backend_that_dies_or_raises_while_loading_is_a_clear_error(tmp_path, backend, words):
    proc = subprocess.run([sys.executable, "-m", "conformance", *RUN, "--backend",
                           f"tests.support.misbehaving_backends:{backend}", "-j", "2", "--report",
                           str(tmp_path / "r.json")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert words in proc.stderr and f"misbehaving_backends:{backend}" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_a_constructor_that_raises_without_isolation_is_a_clear_error(capsys):
    assert cli.main([*RUN, "--backend", "tests.support.misbehaving_backends:RAISES_ON_CONSTRUCTION",
                     "--no-isolation"]) == 2
    assert "could not be constructed: RuntimeError: no device found" in capsys.readouterr().err


@pytest.mark.parametrize("line,words", [
    ('{"id": "Add/golden/same_shape/param", "status": "passed", "seconds": "abc"}', "field 'seconds'"),
    ('{"id": "Add/golden/same_shape/param", "status": "passed", "chosen": [1]}', "field 'chosen'"),
    ('{"id": ["x"], "status": "passed"}', "field 'id'"),
    ('{"id": "Add/golden/same_shape/param", "status": "great"}', "field 'status'"),
    ('{"id": "Add/golden/same_shape/param", "status": "passed", "message": 5}', "field 'message'"),
    ('{"id": "Add/golden/same_shape/param", "status": "passed", "seed": "0"}', "field 'seed'"),
    ('{"id": "Add/golden/same_shape/param", "status": "passed", "seconds": NaN}', "field 'seconds'"),
    ('[1, 2]', "expected a JSON object"),
    ('{"status": "passed"}', "missing field 'id'"),
])
def test_a_journal_line_of_the_wrong_shape_is_a_clear_error(capsys, tmp_path, line, words):
    journal = tmp_path / "run.jsonl"
    good = json.dumps({"id": "Add/golden/scalar/param", "status": "passed", "backend": "reference", "seed": 0})
    journal.write_text(good + "\n" + line + "\n")
    assert cli.main([*RUN, "--backend", "reference", "--no-isolation", "--resume", str(journal)]) == 2
    err = capsys.readouterr().err
    assert f"{journal}:2: " in err and words in err and "Traceback" not in err


def test_a_journal_that_is_not_utf8_or_has_a_huge_line_is_a_clear_error(capsys, tmp_path, monkeypatch):
    from conformance import journal as journal_module
    journal = tmp_path / "run.jsonl"
    journal.write_bytes(b'{"id": "Add/golden/x", "status": "passed", "message": "\xff"}\n')
    assert cli.main([*RUN, "--backend", "reference", "--no-isolation", "--resume", str(journal)]) == 2
    assert f"{journal}:1: not UTF-8 text (byte 0xff" in capsys.readouterr().err
    monkeypatch.setattr(journal_module, "MAX_LINE", 100)
    journal.write_text(json.dumps({"id": "Add/golden/x", "status": "passed", "message": "m" * 200}) + "\n")
    with pytest.raises(journal_module.JournalError, match=r":1: a line longer than 100 bytes"):
        journal_module.read_journal(str(journal))


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "-inf", "soon"])
def test_a_timeout_that_is_not_a_positive_finite_number_is_refused(capsys, value):
    with pytest.raises(SystemExit) as info:
        cli.main([*RUN, "--backend", "reference", f"--timeout={value}"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --timeout:" in err and value in err and "number of seconds" in err and "Traceback" not in err


def test_the_isolated_runner_refuses_a_timeout_that_is_not_positive():
    from conformance.isolation import IsolatedRunner
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="timeout must be a finite number of seconds > 0"):
            IsolatedRunner("reference", timeout=bad)


def test_an_interrupt_while_a_worker_is_handed_its_next_batch_ends_that_worker():
    """Cases are taken lazily, between a worker's last result and its next batch: an interrupt there (Ctrl-C while
    the next case is made) must end that worker too, not leave it running until the interpreter exits."""
    from conformance.isolation import IsolatedRunner

    def cases():
        yield from [c for c in cases_for(specs.get("Add")) if c.kind == "golden"][:2]  # batches look one case ahead
        raise KeyboardInterrupt

    runner = IsolatedRunner("reference", jobs=1, batch_size=1)
    done = []
    with pytest.raises(KeyboardInterrupt):
        runner.run(cases(), done.append)
    assert [r.status for r in done] == [PASSED]
    assert runner._idle == []
    assert not [p for p in multiprocessing.active_children() if p.name == "conformance-worker"]
