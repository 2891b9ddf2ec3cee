"""A differential search judges each program in a worker process (conformance/fuzz_isolation.py): a backend that
hangs or crashes costs one program, which is a finding naming the side and op that were running, and the search
goes on. The misbehaving backends (tests/support/misbehaving_backends.py) misbehave on a rank-0 Neg only."""

from __future__ import annotations

import numpy as np
import pytest

from conformance import fuzz as fuzz_module
from conformance.cli import main
from conformance.fuzz import AGREE, DISAGREE, KNOWN, FuzzReport, Program, Step
from conformance.fuzz_departures import departure_of
from conformance.fuzz_isolation import FuzzWorkerError, IsolatedJudge
from conformance.isolation import WorkerStartError

MISBEHAVING = "tests.support.misbehaving_backends"


def _neg(operand: np.ndarray) -> Program:
    return Program((Step("Neg", {"operand": operand}, {}),))


def test_a_program_that_hangs_the_backend_is_a_finding_and_the_next_program_runs():
    with IsolatedJudge(f"{MISBEHAVING}:HANGS", timeout=3) as judged:
        outcome, finding, why = judged(_neg(np.array(2.0)))
        assert outcome == DISAGREE and finding.op == "Neg" and why == ""
        assert finding.message.startswith("no verdict within 3 s while the backend ran Neg (a hang or crash of "
                                          f"'{MISBEHAVING}:HANGS'")
        assert list(finding.inputs) == ["operand"] and finding.inputs["operand"] == 2.0 and finding.attrs == {}
        assert f"get_backend('{MISBEHAVING}:HANGS').execute(computation, args)" in finding.reproduction
        assert judged(_neg(np.array([1.0, -2.0])))[0] == AGREE  # a new worker judged it


def test_a_program_that_kills_the_worker_is_a_finding_naming_how_it_ended():
    with IsolatedJudge(f"{MISBEHAVING}:ABORTS", timeout=60) as judged:
        outcome, finding, _ = judged(_neg(np.array(2.0)))
        assert outcome == DISAGREE
        assert finding.message.startswith("the worker process killed by signal SIGABRT while the backend ran Neg")
        assert judged(_neg(np.array([3.0])))[0] == AGREE


def test_a_program_whose_chain_hangs_is_a_finding_with_no_operands_for_a_departure_to_claim():
    """The whole chain hung on the backend: no single op's operands are known, so no departure can claim it."""
    program = Program((Step("Abs", {"operand": np.array(-2.0)}, {}), Step("Neg", {}, {}, chained="operand")))
    with IsolatedJudge(f"{MISBEHAVING}:HANGS", timeout=3) as judged:
        outcome, finding, _ = judged(program)
    assert outcome == DISAGREE and "while the backend ran Neg" in finding.message and finding.inputs is None


def test_xla_svd_of_an_infinity_hangs_and_its_departure_claims_the_finding():
    """docs/fuzz_findings.md#svd-of-an-infinity-hangs: jax's SVD on CPU never returns for this matrix."""
    program = Program((Step("SVD", {"a": np.array([[1.0, 2, 3], [0, 0, 0], [np.inf, 3, 4]], np.float32)}, {}),))
    with IsolatedJudge("jax", timeout=15) as judged:
        verdict = judged(program)
    outcome, finding, _ = verdict
    assert outcome == DISAGREE and finding.message.startswith("no verdict within 15 s while the backend ran SVD")
    assert departure_of(finding, "jax").name == "svd-of-an-infinity-hangs"
    report = FuzzReport()
    fuzz_module._run_one(program, lambda p: verdict, "jax", report)
    assert report.outcomes[KNOWN] == 1 and report.departures == {"svd-of-an-infinity-hangs": 1}
    a_nan = {"a": np.array([[1.0, np.nan], [np.inf, 3]], np.float32)}
    assert departure_of(type(finding)(program, "SVD", "", "", a_nan, {}), "jax") is None


def test_the_search_s_own_bug_in_the_worker_is_raised_as_such(monkeypatch):
    """A program the worker cannot even build (the suite's bug) is a FuzzWorkerError with the worker's traceback,
    which the search records as a suite error, and the worker judges the next program."""
    with IsolatedJudge("reference", timeout=60) as judged:
        with pytest.raises(FuzzWorkerError, match="NoSuchOp"):
            judged(Program((Step("NoSuchOp", {"operand": np.array(1.0)}, {}),)))
        assert judged(_neg(np.array([1.0])))[0] == AGREE


def test_a_backend_that_cannot_load_stops_the_search_with_a_clear_error(capsys):
    with pytest.raises(WorkerStartError, match="no device found"):
        IsolatedJudge(f"{MISBEHAVING}:RAISES_ON_CONSTRUCTION").start()
    with pytest.raises(ValueError, match="timeout must be a finite number of seconds > 0, got 0"):
        IsolatedJudge("reference", timeout=0)


def test_the_command_line_search_is_isolated_and_reports_the_hang(capsys):
    """``fuzz --timeout`` on a backend that hangs on rank-0 Neg: the search ends, exit 1, the hang is a finding."""
    code = main(["fuzz", "--examples", "12", "--seed", "0", "--ops", "Neg", "--max-steps", "1", "--backend",
                 f"{MISBEHAVING}:HANGS", "--timeout", "3"])
    out = capsys.readouterr().out
    assert code == 1 and "no verdict within 3 s while the backend ran Neg" in out
