"""``python -m conformance``'s options (conformance/cli.py, conformance/selection.py, conformance/merge.py): every
value checked up front, output paths checked before the run, no result lost, case selection, shards and merge,
what the end of a run says, and reproductions that run as printed."""

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys

import pytest

import specs
from conformance import cli
from conformance.generate import cases_for
from conformance.selection import case_etypes, chosen_ops, in_shard, suggestions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _main(capsys, *argv):
    """(exit status, stdout, stderr) of ``python -m conformance ARGV`` run in this process."""
    try:
        code = cli.main(list(argv))
    except SystemExit as e:  # argparse refuses a value
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "--kinds", "bogus"], "unknown case kind 'bogus'"),
    (["run", "--kinds", "golden,Generated"], "unknown case kind 'Generated'"),
    (["run", "--timeout", "-1"], "-1 is not a positive, finite number of seconds"),
    (["run", "--timeout", "0"], "0 is not a positive"),
    (["run", "--timeout", "nan"], "nan is not a positive"),
    (["run", "--timeout", "inf"], "inf is not a positive"),
    (["run", "--timeout", "soon"], "'soon' is not a number of seconds"),
    (["run", "-j", "0"], "0 is not a positive integer"),
    (["run", "--batch", "-3"], "-3 is not a positive integer"),
    (["run", "--seed", "-1"], "-1 is negative"),
    (["run", "--shard", "3/2"], "'3/2': need 1 <= K <= N"),
    (["run", "--shard", "2"], "'2' is not K/N"),
    (["run", "--families", "binray"], "unknown family 'binray'"),
    (["run", "--etypes", "f31"], "unknown element type 'f31'"),
    (["fuzz", "--examples", "0"], "0 is not a positive integer"),
    (["fuzz", "--max-steps", "x"], "'x' is not an integer"),
])
def test_bad_option_values_are_refused_before_anything_runs(capsys, argv, message):
    code, out, err = _main(capsys, *argv)
    assert code == 2 and message in err, err
    assert out == ""


def test_an_op_name_is_matched_without_case_and_near_misses_are_suggested(capsys):
    assert suggestions("Dott", specs.load_all()) == ["Dot", "DotGeneral"]
    code, _, err = _main(capsys, "run", "--backend", "reference", "--ops", "Dott,Add")
    assert code == 2 and "error: no spec for Dott (did you mean Dot, DotGeneral?)" in err
    code, out, _ = _main(capsys, "run", "--backend", "reference", "--ops", "add", "--kinds", "golden",
                         "--no-isolation", "-q")
    assert code == 0 and re.search(r"^Add\s+22\s+22\b", out, re.M), out


def test_zero_cases_selected_is_an_error(capsys):
    code, out, err = _main(capsys, "run", "--backend", "reference", "--ops", "Add", "--cases", "Add/golden/nothing*")
    assert code == 2 and "error: 0 cases selected (ops Add; kinds golden,generated,error; cases Add/golden/nothing*)" \
        in err, err
    assert "passed" not in out


def test_selection_by_family_case_pattern_and_element_type(tmp_path, capsys):
    all_specs = specs.load_all()
    assert chosen_ops(all_specs, families=["fft"]) == [n for n, s in all_specs.items() if s.family == "fft"] == ["Fft"]
    assert chosen_ops(all_specs, ["Add"], ["fft"]) == ["Add", "Fft"]
    report = tmp_path / "r.json"
    code, out, err = _main(capsys, "run", "--backend", "reference", "--ops", "Add,Neg", "--cases",
                           "*/generated/s4,Neg/golden", "--etypes", "s4,f32", "--no-isolation", "-q",
                           "--report", str(report))
    assert code == 0, out + err
    cases = json.loads(report.read_text())["cases"]
    every = {c.id: c for n in ("Add", "Neg") for c in cases_for(all_specs[n])}
    want = [i for i, c in every.items() if (i.startswith(("Add/generated/s4/", "Neg/generated/s4/"))
                                           or (i.startswith("Neg/golden/") and case_etypes(c) & {"s4", "f32"}))]
    assert [c["id"] for c in cases] == want and any(i.startswith("Neg/golden/") for i in want)
    assert all(case_etypes(every[c["id"]]) & {"s4", "f32"} for c in cases)


def test_shards_split_the_cases_and_merge_gives_the_unsharded_report(tmp_path, capsys):
    common = ["run", "--backend", "reference", "--ops", "Neg,Add", "--kinds", "golden,error", "--no-isolation", "-q"]
    assert _main(capsys, *common, "--report", str(tmp_path / "all.json"))[0] == 0
    for k in (1, 2, 3):
        code, out, err = _main(capsys, *common, "--shard", f"{k}/3", "--report", str(tmp_path / f"s{k}.json"))
        assert code == 0, out + err
    shards = [json.loads((tmp_path / f"s{k}.json").read_text()) for k in (1, 2, 3)]
    ids = [[c["id"] for c in s["cases"]] for s in shards]
    assert all(ids) and sum(map(len, ids)) == len(set().union(*ids))  # a partition, no shard empty
    assert all(in_shard(i, k, 3) for k, shard in zip((1, 2, 3), ids) for i in shard)
    # the merged report equals the unsharded one, modulo timings (in any order of the files)
    files = [str(tmp_path / f"s{k}.json") for k in (3, 1, 2)]
    code, out, err = _main(capsys, "merge", *files, "-o", str(tmp_path / "merged.json"))
    assert code == 0 and "from 3 shards" in out, err

    def untimed(report):
        report = json.loads(json.dumps(report))
        for key in ("seconds", "started"):
            report.pop(key)
        for c in report["cases"]:
            c.pop("seconds")
        for o in report["ops"].values():
            o.pop("seconds")
        return report

    merged = json.loads((tmp_path / "merged.json").read_text())
    assert untimed(merged) == untimed(json.loads((tmp_path / "all.json").read_text()))
    assert _main(capsys, "report", str(tmp_path / "merged.json"))[0] == 0  # a valid report
    code, _, err = _main(capsys, "merge", files[0], files[1], "-o", str(tmp_path / "m.json"))
    assert code == 2 and "missing 2/3" in err
    code, _, err = _main(capsys, "merge", str(tmp_path / "all.json"), "-o", str(tmp_path / "m.json"))
    assert code == 2 and "not the report of a shard" in err


def test_an_xfail_entry_naming_no_existing_op_is_stale(tmp_path, capsys):
    xfails = tmp_path / "xfails.txt"
    xfails.write_text("Addd/golden   typo of Add\nAdd/golden/same_shape  listed\nPow/golden  another op, not run\n")
    report = tmp_path / "r.json"
    code, out, err = _main(capsys, "run", "--backend", "reference", "--ops", "Add", "--kinds", "golden", "-q",
                           "--no-isolation", "--xfails", str(xfails), "--report", str(report))
    assert code == 0, err
    assert f"warning: xfails {xfails}:1: 'Addd/golden' matches no case (stale entry)" in err
    assert "Pow/golden" not in err
    stale = json.loads(report.read_text())["manifests"]["xfails"]["stale"]
    assert [e["pattern"] for e in stale] == ["Addd/golden"]


def test_an_unwritable_output_path_fails_before_running(tmp_path, capsys):
    for flag in ("--report", "--html", "--junit", "--markdown", "--results"):
        code, out, err = _main(capsys, "run", "--backend", "reference", "--ops", "Add", "--no-isolation",
                               flag, str(tmp_path / "missing" / "r.out"))
        assert code == 2 and f"error: {flag} {tmp_path / 'missing' / 'r.out'}: directory" in err and out == "", err
    code, _, err = _main(capsys, "run", "--backend", "reference", "--ops", "Add", "--report", str(tmp_path))
    assert code == 2 and "is a directory" in err


def test_a_report_that_cannot_be_written_at_the_end_loses_no_result(tmp_path, capsys, monkeypatch):
    real = cli._write

    def failing_write(path, text):
        if path and path.endswith(".html"):
            raise PermissionError(13, "Permission denied")
        real(path, text)

    monkeypatch.setattr(cli, "_write", failing_write)
    code, out, err = _main(capsys, "run", "--backend", "reference", "--ops", "Add", "--kinds", "golden", "-q",
                           "--no-isolation", "--html", str(tmp_path / "r.html"), "--junit", str(tmp_path / "r.xml"))
    assert code == 2 and "<testsuite" in (tmp_path / "r.xml").read_text()
    saved = re.search(r"the JSON report is saved in (\S+)", err)
    assert saved and f"cannot write {tmp_path / 'r.html'}: Permission denied" in err, err
    assert len(json.loads(open(saved.group(1)).read())["cases"]) == 22
    os.remove(saved.group(1))


@pytest.mark.skipif(importlib.util.find_spec("iree") is not None, reason="the iree extra is installed")
def test_a_backend_whose_extra_is_missing_says_how_to_install_it(capsys):
    code, out, _ = _main(capsys, "list")
    assert code == 0 and "iree (not installed: pip install -e '.[iree]')" in out.splitlines()[0]
    code, out, err = _main(capsys, "run", "--backend", "iree", "--ops", "Add")
    assert code == 2 and err.strip() == "error: backend iree is not installed: pip install -e '.[iree]'"
    assert "Traceback" not in err


def test_ctrl_c_prints_the_partial_summary_and_the_resume_command(tmp_path, capsys, monkeypatch):
    real = cli.run_cases

    def interrupted(cases, backend, progress, **options):
        def some(cases):
            for n, case in enumerate(cases):
                if n == 5:  # the batch of the fifth case is not run: 4 results
                    raise KeyboardInterrupt
                yield case
        return real(some(cases), backend, progress, **{**options, "batch_size": 1})

    monkeypatch.setattr(cli, "run_cases", interrupted)
    argv = ["run", "--backend", "reference", "--ops", "Add", "--kinds", "golden", "--no-isolation", "-q"]
    code, out, err = _main(capsys, *argv)
    assert code == 130 and "Traceback" not in err
    assert re.search(r"^total\s+4\s+4\b", out, re.M), out
    assert "interrupted after 4 of 22 cases; the rest run with:" in err
    command = shlex.split(err.strip().splitlines()[-1])
    assert command[1:3] == ["-m", "conformance"] and command[3:-2] == argv and command[-2] == "--resume"
    journal = command[-1]
    assert len(open(journal).read().splitlines()) == 4
    monkeypatch.setattr(cli, "run_cases", real)
    code, out, _ = _main(capsys, *command[3:])
    assert code == 0 and re.search(r"^total\s+22\s+22\b", out, re.M), out
    assert len(open(journal).read().splitlines()) == 22
    os.remove(journal)


def test_the_run_ends_with_counts_exit_reason_and_reports(tmp_path, capsys):
    report = tmp_path / "r.json"
    argv = ["run", "--backend", "tests.test_builder:DOUBLER", "--ops", "Sort", "--kinds", "golden", "-q",
            "--no-isolation"]
    code, out, _ = _main(capsys, *argv, "--report", str(report))
    last = out.rstrip().splitlines()[-3:]
    assert code == 1
    assert re.fullmatch(r"backend doubler, profile spec: \d+ cases: \d+ passed, \d+ failed, .* in [\d.]+ s", last[0])
    assert last[1:] == [f"reports: {report}", last[2]] and re.fullmatch(r"exit 1: \d+ cases? failed.*", last[2])
    assert "implementation-defined outcomes chosen" not in out


def test_outcome_list_is_behind_verbose_and_in_the_report(tmp_path, capsys):
    # jax flushes a subnormal input of Cbrt to zero, an outcome the spec allows
    argv = ["run", "--backend", "jax", "--ops", "Cbrt", "--cases", "Cbrt/golden/subnormal_input", "-q",
            "--no-isolation"]
    code, out, _ = _main(capsys, *argv)
    assert code == 0 and "implementation-defined outcomes chosen (op:" not in out
    assert out.rstrip().splitlines()[-2:] == ["implementation-defined outcomes chosen: -v lists them (or --report "
                                              "writes them)", "exit 0: no case failed"]
    code, verbose, _ = _main(capsys, *argv, "-v", "--report", str(tmp_path / "r.json"))
    assert code == 0 and "implementation-defined outcomes chosen (op: id = outcome, cases):\n  Cbrt:" in verbose
    assert all(c.get("chosen") for c in json.loads((tmp_path / "r.json").read_text())["cases"])


def test_printed_reproductions_of_a_module_attribute_backend_run_as_printed(tmp_path, capsys):
    spec = "tests.test_builder:DOUBLER"
    for isolation in ([], ["--no-isolation"]):
        report = tmp_path / "r.json"
        code, _, _ = _main(capsys, "run", "--backend", spec, "--ops", "Add,Mul,Pad", "--kinds", "golden", "-q",
                           "-j", "1", "--report", str(report), *isolation)
        failed = [c for c in json.loads(report.read_text())["cases"] if c["status"] == "failed"]
        assert code == 1 and failed
        assert all(f"get_backend({spec!r})" in c["reproduction"] and "get_backend('doubler')" not in c["reproduction"]
                   for c in failed)
    for c in failed[::max(1, len(failed) // 4)]:  # a sample, each in a fresh interpreter from the repo root
        proc = subprocess.run([sys.executable, "-c", c["reproduction"]], cwd=ROOT, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "PYTHONPATH": ROOT})
        assert proc.returncode == 0 and proc.stdout.strip(), (c["id"], proc.stderr[-2000:])


def test_fuzz_runs_from_the_base_install_without_hypothesis(capsys, monkeypatch):
    """The search draws from NumPy (the base install has no hypothesis, which only the test extra installs)."""
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # as in the base install: importing it fails
    monkeypatch.delitem(sys.modules, "conformance.fuzz", raising=False)
    code, out, err = _main(capsys, "fuzz", "--examples", "2", "--ops", "Neg", "--max-steps", "1")
    assert code == 0, err
    assert "2 programs" in out and "0 disagreements" in out


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_ctrl_c_on_a_real_run_with_workers(tmp_path, signal_name):
    """SIGINT (Ctrl-C) or SIGTERM (kill PID) to ``python -m conformance run`` (worker processes, no --results) while a
    case hangs: exit 130, the partial summary and the --resume command, no traceback."""
    import signal
    import time

    # SIGINT handled as from a terminal: under a shell's background job (nohup ... &) it is ignored, and Python keeps an
    # ignored SIGINT ignored (the handler is set in the child: a preexec_fn would fork this multithreaded process)
    start = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
             "sys.argv[0] = 'conformance'; runpy.run_module('conformance', run_name='__main__', alter_sys=True)")
    proc = subprocess.Popen([sys.executable, "-c", start, "run", "--backend",
                             "tests.support.misbehaving_backends:HANGS", "--ops", "Abs,Neg", "--kinds", "golden",
                             "-j", "1", "--timeout", "100"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()  # Abs is done; Neg's scalar case hangs
    assert "Abs" in first, first + proc.stderr.read()
    time.sleep(1)
    proc.send_signal(getattr(signal, signal_name))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err and re.search(r"^Abs\s+16\s+16\b", out, re.M), out + err
    done = re.search(r"interrupted after (\d+) of (\d+) cases; the rest run with:\n  (.*--resume (\S+))$", err, re.M)
    assert done and 16 <= int(done.group(1)) < int(done.group(2)), err
    assert len(open(done.group(4)).read().splitlines()) == int(done.group(1))
    os.remove(done.group(4))


def test_coverage_and_fuzz_take_op_names_as_run_does(capsys):
    code, _, err = _main(capsys, "coverage", "--ops", "Dott")
    assert code == 2 and "no spec for Dott (did you mean Dot, DotGeneral?)" in err
    code, out, _ = _main(capsys, "coverage", "--ops", "pad", "--json")
    assert code == 0 and set(json.loads(out)["uncovered"]) <= {"Pad"}
    code, _, err = _main(capsys, "fuzz", "--examples", "1", "--ops", "Negg")
    assert code == 2 and "no spec for Negg (did you mean Neg, " in err


def test_cases_selects_generated_ids_with_commas_and_brackets_as_printed(tmp_path, capsys):
    from conformance.selection import case_patterns, id_matches
    assert case_patterns("Add/golden, Igamma/generated/f16/f16[],f16[]/param,*/error") == [
        "Add/golden", "Igamma/generated/f16/f16[],f16[]/param", "*/error"]
    assert case_patterns("Dot/generated/f32[2,3],f32[3]/param,program/mlp,Pad/*") == [
        "Dot/generated/f32[2,3],f32[3]/param", "program/mlp", "Pad/*"]
    ident = "Igamma/generated/f16/f16[],f16[]/param"
    assert id_matches(ident, ident) and id_matches(ident, "Igamma/generated/f16/f16[],f16[]")
    assert not id_matches(ident, "Igamma/generated/f16/f16[],f16[]/const")
    # an id a report printed runs as pasted, alone
    wanted = [c.id for c in cases_for(specs.get("Igamma")) if "," in c.id][:2]
    report = tmp_path / "r.json"
    code, out, err = _main(capsys, "run", "--backend", "reference", "--ops", "Igamma", "--cases", ",".join(wanted),
                           "--no-isolation", "-q", "--report", str(report))
    assert code == 0, out + err
    assert [c["id"] for c in json.loads(report.read_text())["cases"]] == wanted
