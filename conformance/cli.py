"""``python -m conformance run --backend jax [--ops Add,Pow] [--report r.json] [--xfails F] [--skips F] ...``;
``python -m conformance report r.json --format html -o r.html``; ``python -m conformance compare OLD.json NEW.json``;
``python -m conformance merge shard1.json shard2.json -o all.json``;
``python -m conformance coverage [--json] [--check] [--write-allowlist]``."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import specs
from backend.backends import ENTRY_POINT_GROUP, available_backends, get_backend
from backend.errors import ExecutionError, OpError, UnsupportedError
from conformance import check_program
from conformance.cases import PROGRAM, Case, program_case, program_cases, program_snippet
from conformance.compile_cache import enable_compilation_cache
from conformance.fuzz_isolation import DEFAULT_PROGRAM_TIMEOUT, IsolatedJudge
from conformance.generate import cases_for
from conformance.isolation import DEFAULT_TIMEOUT, IsolatedRunner, WorkerStartError, start_backend
from conformance.journal import Journal, JournalError, read_journal, result_from_record, resume_problem
from conformance.manifest import XPASS, Manifest, ManifestError, as_xfail, skipped
from conformance.outcomes import PROFILES, SPEC
from conformance.progress import RunProgress
from conformance.render import FORMATS, chosen_outcomes_text, render, scoreboard_text, stale_lines, totals_line
from conformance.report import ReportError, build_report, load_report, write_json
from conformance.runner import DEFAULT_BATCH_SIZE, FAILURES, Result, program_result, run_cases
from conformance.selection import (
    ETYPE_NAMES,
    FAMILIES,
    KINDS,
    OP_KINDS,
    SelectionError,
    case_patterns,
    chosen_ops,
    comma_list,
    keep,
    non_negative_int,
    positive_int,
    positive_seconds,
    resolve_ops,
    shard,
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m conformance", description="Run the spec-generated conformance suite.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the suite on a backend")
    run.add_argument("--backend", default="jax", help="reference, jax, pallas, an entry point, or module:attribute")
    run.add_argument("--ops", default="", help="comma-separated op names, any case (default: every op with a spec)")
    run.add_argument("--families", type=comma_list(FAMILIES, "family"), default=[],
                     help=f"comma-separated spec families, adding their ops ({', '.join(FAMILIES)})")
    run.add_argument("--kinds", type=comma_list(KINDS, "case kind"), default=list(KINDS),
                     help=f"which case kinds to run (default {','.join(KINDS)})")
    run.add_argument("--cases", type=case_patterns, default=[],
                     help="comma-separated globs over case ids, matching the whole id or a /-separated prefix "
                     "(e.g. 'Pad/golden,*/generated/f64')")
    run.add_argument("--etypes", type=comma_list(ETYPE_NAMES, "element type"), default=[],
                     help="only cases with an operand of one of these element types (e.g. f32,bf16)")
    run.add_argument("--shard", type=shard, metavar="K/N",
                     help="run the K-th of N shards of the selected cases (a fixed split by case id; "
                     "'python -m conformance merge' joins the shards' JSON reports)")
    run.add_argument("--seed", type=non_negative_int, default=0, help="seed for generated cases")
    run.add_argument("--profile", choices=PROFILES, default=SPEC,
                     help="spec: the documents' semantics, any allowed implementation-defined outcome accepted "
                     "(default); xla: XLA's observed behaviour required everywhere")
    _report_options(run)
    run.add_argument("--xfails", metavar="FILE",
                     help="cases expected to fail: lines 'PATTERN REASON' (see conformance/manifest.py); a listed "
                     "case that fails is xfail (not a failure), one that passes is xpass")
    run.add_argument("--skips", metavar="FILE", help="cases not to run, same format; they are reported skipped")
    run.add_argument("-j", "--jobs", type=positive_int, default=os.cpu_count() or 1,
                     help="worker processes running cases (default: one per core)")
    run.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT,
                     help=f"seconds one case may run before its worker is killed (default {DEFAULT_TIMEOUT:g})")
    run.add_argument("--batch", type=positive_int, default=DEFAULT_BATCH_SIZE,
                     help=f"cases a worker runs together (the jax backend compiles them as one program; a failing "
                     f"case is run again alone); 1 runs each case alone (default {DEFAULT_BATCH_SIZE})")
    run.add_argument("--no-isolation", action="store_true",
                     help="run the cases in this process (no crash or hang protection, no --timeout)")
    run.add_argument("--results", help="append each result to this JSONL file as it comes")
    run.add_argument("--resume", metavar="JSONL",
                     help="skip the cases already in this results file and append the rest to it")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="print every failing case's reproduction and the implementation-defined outcomes chosen")
    rp = sub.add_parser("report", help="render a JSON report (from run --report) as HTML, Markdown, JUnit or text")
    rp.add_argument("file", help="the JSON report")
    rp.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    rp.add_argument("-o", "--output", help="write to this file (default: standard output)")
    cmp = sub.add_parser("compare", help="what changed between two JSON reports; exit 1 if a case regressed",
                         description="Pairs the cases of two JSON reports by id: regressed (fails in NEW, did "
                         "not in OLD), fixed, other status changes, new and removed cases, per-op changes. "
                         "Exit status: 0 no regression, 1 a regression, 2 a file is not a valid report.")
    cmp.add_argument("old", help="the earlier JSON report")
    cmp.add_argument("new", help="the later JSON report")
    cmp.add_argument("--format", choices=("text", "md"), default="text", help="plain text (default) or Markdown")
    cmp.add_argument("-o", "--output", help="write to this file (default: standard output)")
    mg = sub.add_parser("merge", help="join the JSON reports of the shards of one run (run --shard K/N)",
                        description="Joins the JSON reports of 'run --shard 1/N' ... 'run --shard N/N' into the "
                        "report the unsharded run gives (its cases in the same order; seconds summed). Exit "
                        "status: 0 merged, 2 a file is not a valid report or the shards do not belong together.")
    mg.add_argument("files", nargs="+", help="the shards' JSON reports")
    mg.add_argument("-o", "--output", required=True, help="write the merged JSON report to this file")
    sub.add_parser("list", help="list ops with specs and the available backends")
    fz = sub.add_parser("fuzz", help="differential search: random valid programs on the reference and a backend")
    fz.add_argument("--examples", type=positive_int, default=200, help="how many programs to run")
    fz.add_argument("--seed", type=non_negative_int, default=0, help="seed of the search")
    fz.add_argument("--ops", default="", help="comma-separated op names to draw from (default: every op)")
    fz.add_argument("--max-steps", type=positive_int, default=5, help="longest chain of ops in one program")
    fz.add_argument("--backend", default="jax", help="the backend compared with the reference")
    fz.add_argument("--timeout", type=positive_seconds, default=DEFAULT_PROGRAM_TIMEOUT,
                    help=f"seconds the judging of one program may take in the worker process before it is killed and "
                    f"the program is a finding (default {DEFAULT_PROGRAM_TIMEOUT:g})")
    fz.add_argument("--no-isolation", action="store_true",
                    help="judge the programs in this process (no crash or hang protection, no --timeout)")
    fz.add_argument("-v", "--verbose", action="store_true", help="list every disagreement, not one per cause")
    cp = sub.add_parser("check-program", help="run a StableHLO program on a backend and the reference; localise the "
                        "first op that differs", description="Runs a program (StableHLO text or bytecode, or a "
                        "jax.export artifact) on the backend and on the reference with the same inputs, judges every "
                        "output with the suite's tolerances and allowed outcomes and, when one differs, localises "
                        "the first op that differs given identical inputs and prints its one-op reproduction. Exit "
                        "status: 0 passed (or implementation-defined), 1 a difference, 2 the program cannot be "
                        "read or run, or the backend does not support it.")
    cp.add_argument("program", help="StableHLO text or bytecode, or a jax.export artifact")
    cp.add_argument("--backend", default="jax", help="reference, jax, pallas, an entry point, or module:attribute")
    cp.add_argument("--inputs", help="an .npz of the inputs (arg0, arg1... or in parameter order); default: drawn")
    cp.add_argument("--seed", type=non_negative_int, default=0, help="seed of the drawn inputs")
    cp.add_argument("--profile", choices=PROFILES, default=SPEC, help="the judging profile, as run's")
    _report_options(cp)
    cov = sub.add_parser("coverage", help="list the arguments and documented edges that no case exercises")
    cov.add_argument("--ops", default="", help="comma-separated op names (default: every op with a spec)")
    cov.add_argument("--seed", type=non_negative_int, default=0, help="seed for generated cases")
    cov.add_argument("--json", action="store_true", help="print {op: [uncovered items]} as JSON")
    cov.add_argument("--check", action="store_true", help="exit 1 if the list differs from the allowlist")
    cov.add_argument("--write-allowlist", action="store_true", help="write the list to the allowlist file")
    return p


def _report_options(p: argparse.ArgumentParser) -> None:
    """The report files ``run`` and ``check-program`` write."""
    p.add_argument("--report", help="write a JSON report to this path")
    p.add_argument("--junit", help="write a JUnit XML report to this path")
    p.add_argument("--markdown", help="write a Markdown report to this path")
    p.add_argument("--html", help="write a self-contained HTML scoreboard to this path")


def _check_program(args: argparse.Namespace) -> int:
    """``check-program PROGRAM``: its verdict as a case of kind ``program``, in the reports ``run`` writes."""
    bad_path = _unwritable(args)
    if bad_path:
        print(f"error: {bad_path}", file=sys.stderr)
        return 2
    try:
        computation = check_program.load_program(args.program)
        inputs = (check_program.load_inputs(args.inputs, computation) if args.inputs
                  else check_program.draw_inputs(computation, args.seed))
    except (OSError, OpError, UnsupportedError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    backend = _backend(args.backend)
    if backend is None:
        return 2
    started = datetime.now(UTC)
    name = os.path.splitext(os.path.basename(args.program))[0]
    try:
        checked = check_program.check_program(computation, backend, inputs, name, args.profile, args.backend,
                                              check_program.program_devices(args.program))
    except (OpError, UnsupportedError, ExecutionError) as e:  # the reference cannot run it
        print(f"error: the reference cannot run the program: {e}", file=sys.stderr)
        return 2
    result = program_result(program_case(name), checked)
    if result.status in FAILURES and not result.reproduction:
        result.reproduction = program_snippet(args.backend, args.program, args.inputs, args.seed)
    options = {"ops": None, "kinds": [PROGRAM], "program": args.program, "inputs": args.inputs,
               **({} if args.inputs else {"input_seed": args.seed})}
    report = build_report([result], backend, seconds=checked.seconds, seed=args.seed, profile=args.profile,
                          options=options, started=started)
    print(check_program.text_report(checked))
    written, unwritten = _write_reports(args, report)
    if written:
        print("reports: " + ", ".join(written))
    if unwritten:
        print(f"exit 2: {unwritten}", file=sys.stderr)
        return 2
    return {check_program.FAILED: 1, check_program.UNSUPPORTED: 2}.get(checked.status, 0)


def _coverage(args: argparse.Namespace, all_specs: dict) -> int:
    from conformance import coverage

    try:
        names = resolve_ops([n.strip() for n in args.ops.split(",") if n.strip()], all_specs)
    except SelectionError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    chosen = {n: all_specs[n] for n in names} if names else all_specs
    uncovered = coverage.coverage(chosen, args.seed)
    if args.write_allowlist:
        if names:
            print("error: --write-allowlist covers every spec; drop --ops", file=sys.stderr)
            return 2
        coverage.write_allowlist(uncovered)
        print(f"wrote {sum(map(len, uncovered.values()))} items to {coverage.ALLOWLIST_PATH}")
        return 0
    if args.json:
        print(json.dumps({"uncovered": uncovered, "total_items": coverage.total_items(chosen)}, indent=1))
    else:
        print(coverage.table(uncovered, coverage.total_items(chosen)))
    if args.check:
        result = coverage.compare(uncovered, coverage.read_allowlist())
        if names:  # only the chosen ops: ignore the allowlist's other entries
            keep = set(names)
            result = coverage.Comparison(result.new, [i for i in result.stale if i.split()[0] in keep],
                                         result.new_ops)
        if not result.ok:
            print(result.message(), file=sys.stderr)
            return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "check-program":
        return _check_program(args)
    if args.command in ("report", "compare"):
        return _report_command(args)
    if args.command == "merge":
        return _merge_command(args)
    all_specs = specs.load_all()
    if args.command == "coverage":
        return _coverage(args, all_specs)
    if args.command == "list":
        print("backends:", ", ".join(f"{name} (not installed: {hint})" if hint else name
                                     for name in available_backends() for hint in [_missing_extra(name)]))
        for name, spec in all_specs.items():
            print(f"{name:<28} {spec.family:<20} {spec.category}")
        return 0
    try:
        names = chosen_ops(all_specs, [n.strip() for n in args.ops.split(",") if n.strip()],
                           getattr(args, "families", ()))
    except SelectionError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.command == "fuzz":
        return _fuzz(args, names, all_specs)
    return _run_command(args, names, all_specs, list(sys.argv[1:] if argv is None else argv))


def _run_command(args: argparse.Namespace, names: list[str], all_specs: dict, argv: list[str]) -> int:
    bad_path = _unwritable(args)
    if bad_path:
        print(f"error: {bad_path}", file=sys.stderr)
        return 2
    try:
        xfails = Manifest.read(args.xfails) if args.xfails else None
        skips = Manifest.read(args.skips) if args.skips else None
        done = read_journal(args.resume) if args.resume else {}
    except (OSError, ManifestError, JournalError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    selected: list[Case] = []
    per_op: dict[str, list[Case]] = {}
    if not set(args.kinds) & set(OP_KINDS):
        names = []  # only programs: no op's cases are generated (and no manifest entry of an op is stale)
    for name in names:
        every = cases_for(all_specs[name], args.seed)
        for manifest in (xfails, skips):  # an entry matching a case of the run's ops is not stale
            if manifest:
                manifest.note_cases(c.id for c in every)
        per_op[name] = [c for c in every if keep(c, args.kinds, args.cases, args.etypes, args.shard)]
        selected += per_op[name]
    if PROGRAM in args.kinds and not args.ops.strip() and not args.families and not args.etypes:
        every = program_cases()  # the corpus runs in a run of every op (not one narrowed to some ops or types)
        for manifest in (xfails, skips):
            if manifest:
                manifest.note_cases(c.id for c in every)
        per_op[PROGRAM] = [c for c in every if keep(c, args.kinds, args.cases, args.etypes, args.shard)]
        selected += per_op[PROGRAM]
        names = [*names, PROGRAM]
    if not selected:
        print(f"error: 0 cases selected ({_selection_text(args, names)}): nothing to run", file=sys.stderr)
        return 2
    # the backend is constructed in a worker (its abort or exception cannot end this process), which runs cases next
    first_worker = None
    try:
        if args.no_isolation:
            backend = _backend(args.backend)
        elif _missing_extra(args.backend):
            backend = _backend(args.backend)  # prints how to install it
        else:
            backend, first_worker = start_backend(args.backend, args.profile)
    except WorkerStartError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if backend is None:
        return 2
    problem = resume_problem(args.resume, done, backend.name, args.profile, args.seed) if args.resume else None
    if problem:
        if first_worker is not None:
            first_worker.stop()
        print(f"error: {problem}", file=sys.stderr)
        return 2
    journal_path = args.results or args.resume
    journal = Journal(journal_path, backend.name, args.profile, args.seed) if journal_path else None
    started = datetime.now(UTC)
    start = time.perf_counter()
    results: list[Result] = []
    recorded: list[Result] = []  # the results a journal holds (or would), as the backend gave them
    ran_ops = [n for n in names if per_op.get(n)]
    progress = RunProgress(ran_ops, quiet=args.quiet)
    order: dict[str, int] = {}

    def to_run() -> Iterator[Case]:
        for name in ran_ops:
            progress.expect(name, len(per_op[name]))
            for case in per_op[name]:
                order[case.id] = len(order)
                skip = skips.match(case.id) if skips else None
                if skip:
                    on_result(skipped(case, skip), record=False)
                elif case.id in done:
                    on_result(result_from_record(case, done[case.id], args.backend), record=False)
                else:
                    yield case

    def on_result(result: Result, record: bool = True) -> None:
        results.append(result)
        if record:
            recorded.append(result)
            if journal:
                journal.append(result)
        entry = xfails.match(result.case.id) if xfails else None
        if entry:
            result = as_xfail(result, entry)
            results[-1] = result
        progress.add(result)

    interrupted = False
    # kill PID (SIGTERM) stops the run as Ctrl-C does: the partial summary, the reports, the --resume command
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler) \
        if threading.current_thread() is threading.main_thread() else None
    try:
        if args.no_isolation:
            enable_compilation_cache()
            run_cases(to_run(), backend, on_result, profile=args.profile, batch_size=args.batch,
                      backend_spec=args.backend)
        else:
            with IsolatedRunner(args.backend, jobs=args.jobs, timeout=args.timeout, profile=args.profile,
                                batch_size=args.batch, workers=[first_worker] if first_worker else ()) as runner:
                runner.run(to_run(), on_result)
    except WorkerStartError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        progress.finish()
        if journal:
            journal.close()
    results.sort(key=lambda r: order[r.case.id])
    seconds = time.perf_counter() - start
    failed = [r for r in results if r.status in FAILURES]
    options = {"ops": [n.strip() for n in args.ops.split(",") if n.strip()] or None, "kinds": sorted(args.kinds),
               "jobs": None if args.no_isolation else args.jobs,
               "timeout": None if args.no_isolation else args.timeout, "isolation": not args.no_isolation,
               **{k: v for k, v in (("families", args.families), ("cases", args.cases), ("etypes", args.etypes))
                  if v}, **({"shard": f"{args.shard[0]}/{args.shard[1]}"} if args.shard else {})}
    known = [*all_specs, PROGRAM]
    manifests = {"xfails": xfails.summary(names, known) if xfails else None,
                 "skips": skips.summary(names, known) if skips else None}
    report = build_report(results, backend, seconds=seconds, seed=args.seed, profile=args.profile, options=options,
                          started=started, manifests=manifests)
    print()
    print(scoreboard_text(report))
    print("(. passed, F failed, C crashed, T timed out, u unsupported, i implementation-defined, x xfail, X xpass, "
          "s skipped)")
    if args.verbose and chosen_outcomes_text(report):
        print("\n" + chosen_outcomes_text(report))
    for r in results:
        if r.status == XPASS:
            print(f"XPASS {r.case.id}: listed as xfail ({r.reason}) but passed")
    for line in stale_lines(report):
        print(f"warning: {line}", file=sys.stderr)
    for r in failed[: None if args.verbose else 10]:
        print(f"\n{r.status.upper()} {r.case.id}: {r.message}\n--- reproduction ---\n{r.reproduction}")
    if len(failed) > 10 and not args.verbose:
        print(f"\n... and {len(failed) - 10} more failures (use -v or --report)")
    written, unwritten = _write_reports(args, report)
    print(f"\nbackend {backend.name}, profile {args.profile}: {totals_line(report)} in {seconds:.1f} s")
    if written:
        print("reports: " + ", ".join(written))
    elif chosen_outcomes_text(report) and not args.verbose:
        print("implementation-defined outcomes chosen: -v lists them (or --report writes them)")
    if interrupted and len(results) < len(selected):  # (after the last result, Ctrl-C lost nothing)
        path = journal_path or _save_journal(recorded, backend.name, args.profile, args.seed)
        print(f"interrupted after {len(results)} of {len(selected)} cases; the rest run with:\n  "
              f"{_resume_command(argv, path)}", file=sys.stderr)
        return 130
    if unwritten:
        print(f"exit 2: {unwritten}", file=sys.stderr)
        return 2
    if failed:
        print(f"exit 1: {len(failed)} case{'s' if len(failed) != 1 else ''} failed, crashed or timed out")
        return 1
    print("exit 0: no case failed")
    return 0


def _selection_text(args: argparse.Namespace, names: list[str]) -> str:
    kinds = [k for k in args.kinds if k != PROGRAM or PROGRAM in names]  # programs run only in a run of every op
    parts = [f"ops {','.join(names) if len(names) <= 5 else f'{len(names)} ops'}", f"kinds {','.join(kinds)}"]
    parts += [f"{flag} {','.join(v)}" for flag, v in (("families", args.families), ("cases", args.cases),
                                                        ("etypes", args.etypes)) if v]
    if args.shard:
        parts.append(f"shard {args.shard[0]}/{args.shard[1]}")
    return "; ".join(parts)


def _unwritable(args: argparse.Namespace) -> str:
    """Why one of the output paths cannot be written (checked before the run), or ''."""
    for flag in ("report", "junit", "markdown", "html", "results", "resume"):
        path = getattr(args, flag, None)
        if not path:
            continue
        parent = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path):
            return f"--{flag} {path} is a directory, not a file"
        if not os.path.isdir(parent):
            return f"--{flag} {path}: directory {parent} does not exist"
        if not os.access(path if os.path.exists(path) else parent, os.W_OK):
            return f"--{flag} {path}: not writable"
    return ""


def _write_reports(args: argparse.Namespace, report: dict[str, Any]) -> tuple[list[str], str]:
    """Write the reports asked for: the paths written and, if one failed, the error (the JSON report is then saved
    to a file of its own, so that no result is lost)."""
    written, errors = [], []
    for path, fmt in ((args.report, "json"), (args.junit, "junit"), (args.markdown, "md"), (args.html, "html")):
        if path:
            try:
                _write(path, render(report, fmt))
                written.append(path)
            except OSError as e:
                errors.append(f"cannot write {path}: {e.strerror or e}")
    if not errors:
        return written, ""
    fd, saved = tempfile.mkstemp(prefix="conformance-report-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(render(report, "json"))
    return written, "; ".join(errors) + f"; the JSON report is saved in {saved}"


def _save_journal(results: list[Result], backend: str, profile: str, seed: int = 0) -> str:
    """Write results to a new journal file (an interrupted run without --results) and return its path."""
    fd, path = tempfile.mkstemp(prefix=f"conformance-{backend}-", suffix=".jsonl")
    os.close(fd)
    journal = Journal(path, backend, profile, seed)
    for r in results:
        journal.append(r)
    journal.close()
    return path


def _resume_command(argv: list[str], journal: str) -> str:
    """The command line that runs the rest: ``argv`` with ``--resume journal`` in place of --results/--resume."""
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--results", "--resume"):
            skip = True
            continue
        if a.startswith(("--results=", "--resume=")):
            continue
        kept.append(a)
    return shlex.join([sys.executable, "-m", "conformance", *kept, "--resume", journal])


def _missing_extra(name: str) -> str:
    """For a backend (an entry point) whose extra's packages are not installed, the line that installs them."""
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name != name or ep.dist is None:
            continue
        extra = f'extra == "{name}"'
        needed = [re.match(r"[A-Za-z0-9_.\-]+", r).group() for r in ep.dist.requires or [] if extra in r]
        for package in needed:
            try:
                metadata.version(package)
            except metadata.PackageNotFoundError:
                return f"pip install -e '.[{name}]'"
    return ""


def _write(path: str | None, text: str) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def _report_command(args: argparse.Namespace) -> int:
    """``report FILE --format F [-o OUT]`` and ``compare OLD NEW [--format text|md] [-o OUT]``."""
    from conformance.compare_reports import diff_reports, diff_text

    try:
        if args.command == "report":
            _write(args.output, render(load_report(args.file), args.format))
            return 0
        diff = diff_reports(load_report(args.old), load_report(args.new))
    except ReportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    _write(args.output, diff_text(diff, markdown=args.format == "md"))
    return 1 if diff.regressed else 0


def _merge_command(args: argparse.Namespace) -> int:
    """``merge SHARD.json ... -o OUT``: the shards' reports as the unsharded run's report."""
    from conformance.merge import merge_reports

    try:
        merged = merge_reports([load_report(f) for f in args.files], args.files)
    except ReportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        write_json(args.output, merged)
    except OSError as e:
        print(f"error: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"{args.output}: {totals_line(merged)} from {len(args.files)} shards")
    return 0


def _backend(name: str) -> Any:
    """The backend ``--backend`` names, or None (with an error printed): unknown, not installed or failing to load."""
    hint = _missing_extra(name)
    if hint:
        print(f"error: backend {name} is not installed: {hint}", file=sys.stderr)
        return None
    try:
        return get_backend(name)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
    except ImportError as e:
        print(f"error: backend {name} cannot be loaded: {type(e).__name__}: {e}", file=sys.stderr)
    except Exception as e:  # a backend's own constructor
        print(f"error: the backend '{name}' could not be constructed: {type(e).__name__}: {e}", file=sys.stderr)
    return None


def _fuzz(args: argparse.Namespace, names: list[str], all_specs: dict) -> int:
    from conformance.fuzz import fuzz, summary_text

    backend = _backend(args.backend)
    if backend is None:
        return 2
    start = time.perf_counter()

    shown = 0

    def progress(report: Any) -> None:
        nonlocal shown
        for f in report.findings[shown:]:
            print(f"... disagreement in program {report.programs}: {f.signature} ({f.program.describe()}): "
                  f"{f.message.splitlines()[0][:200]}", flush=True)
        shown = len(report.findings)
        if report.programs % 100 == 0:
            print(f"... {report.programs} programs, {len(report.findings)} disagreements", flush=True)

    signal.signal(signal.SIGTERM, signal.default_int_handler)  # kill PID: stop and report what ran
    if args.no_isolation:
        report = fuzz(args.examples, args.seed, names, args.max_steps, backend, progress)
    else:
        try:
            with IsolatedJudge(args.backend, args.timeout) as judged:
                judged.start()
                report = fuzz(args.examples, args.seed, names, args.max_steps, backend, progress, judged)
        except WorkerStartError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    print(summary_text(report, args.verbose))
    print(f"\nfuzz seed {args.seed} on {backend.name}: {report.programs} programs in "
          f"{time.perf_counter() - start:.1f} s, {len(report.findings)} disagreements")
    return 1 if report.findings else 0
