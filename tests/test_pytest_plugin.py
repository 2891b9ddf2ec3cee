"""The pytest plugin runs each case as its own test and reports failures with a reproduction."""

import re
import subprocess
import sys

import specs
from conformance import cases_for


def _pytest(*args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "conformance.pytest_plugin", "--pyargs",
                           "conformance.suite_test", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *args],
                          capture_output=True, text=True, timeout=300)


def test_one_test_per_case_on_reference():
    proc = _pytest("--conformance-backend", "reference", "--conformance-ops", "Add")
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert f"{len(cases_for(specs.get('Add')))} passed" in proc.stdout


def test_failures_show_a_reproduction():
    proc = _pytest("--conformance-backend", "tests.test_builder:DOUBLER", "--conformance-ops", "Abs", "-k", "golden")
    assert proc.returncode == 1
    assert "reproduction" in proc.stdout and "ops.Abs(" in proc.stdout


def test_a_crashing_case_fails_alone():
    proc = _pytest("--conformance-backend", "tests.support.misbehaving_backends:ABORTS", "--conformance-ops", "Neg",
                   "-k", "golden")
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "crashed: the worker process killed by signal SIGABRT" in proc.stdout
    assert "1 failed, 5 passed" in proc.stdout or "2 failed, 10 passed" in proc.stdout, proc.stdout[-2000:]


def test_the_xfail_and_skip_manifests_apply(tmp_path):
    xfails, skips = tmp_path / "xfails.txt", tmp_path / "skips.txt"
    xfails.write_text("Abs/golden/ints   doubles every value\nAbs/golden/complex_infinity_and_nan  passes doubled\n")
    skips.write_text("Abs/golden/floats   not run here\n")
    proc = _pytest("--conformance-backend", "tests.test_builder:DOUBLER", "--conformance-ops", "Abs", "-k", "golden",
                   "--conformance-xfails", str(xfails), "--conformance-skips", str(skips), "-rsxX")
    ids = [c.id for c in cases_for(specs.get("Abs")) if c.kind == "golden"]
    assert len(ids) == 16
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert re.search(r"\b10 failed, 2 skipped, (\d+ deselected, )?2 xfailed, 2 xpassed\b", proc.stdout), proc.stdout[-3000:]
    assert "not run here" in proc.stdout and "doubles every value" in proc.stdout
    bad = tmp_path / "bad.txt"
    bad.write_text("Abs/golden\n")
    proc = _pytest("--conformance-backend", "reference", "--conformance-ops", "Abs", "--conformance-xfails", str(bad))
    assert proc.returncode == 4 and "has no reason" in proc.stderr, proc.stderr[-2000:]
