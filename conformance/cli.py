"""``python -m conformance run --backend jax [--ops Add,Pow] [--report r.json] [--xfails F] [--skips F] ...``;
``python -m conformance report r.json --format html -o r.html``; ``python -m conformance compare OLD.json NEW.json``;
``python -m conformance coverage [--json] [--check] [--write-allowlist]``."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import specs
from backend.backends import available_backends, get_backend
from conformance.cases import Case
from conformance.compile_cache import enable_compilation_cache
from conformance.generate import cases_for
from conformance.isolation import DEFAULT_TIMEOUT, IsolatedRunner, WorkerStartError, start_backend
from conformance.journal import Journal, JournalError, read_journal, result_from_record, resume_problem
from conformance.manifest import XPASS, Manifest, ManifestError, as_xfail, skipped
from conformance.options import positive_seconds
from conformance.outcomes import PROFILES, SPEC
from conformance.progress import RunProgress
from conformance.render import FORMATS, chosen_outcomes_text, render, scoreboard_text, stale_lines
from conformance.report import ReportError, build_report, load_report
from conformance.runner import DEFAULT_BATCH_SIZE, FAILURES, Result, run_cases


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m conformance", description="Run the spec-generated conformance suite.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the suite on a backend")
    run.add_argument("--backend", default="jax", help="reference, jax, pallas, an entry point, or module:attribute")
    run.add_argument("--ops", default="", help="comma-separated op names (default: every op with a spec)")
    run.add_argument("--kinds", default="golden,generated,error", help="which case kinds to run")
    run.add_argument("--seed", type=int, default=0, help="seed for generated cases")
    run.add_argument("--profile", choices=PROFILES, default=SPEC,
                     help="spec: the documents' semantics, any allowed implementation-defined outcome accepted "
                     "(default); xla: XLA's observed behaviour required everywhere")
    run.add_argument("--report", help="write a JSON report to this path")
    run.add_argument("--junit", help="write a JUnit XML report to this path")
    run.add_argument("--markdown", help="write a Markdown report to this path")
    run.add_argument("--html", help="write a self-contained HTML scoreboard to this path")
    run.add_argument("--xfails", metavar="FILE",
                     help="cases expected to fail: lines 'PATTERN REASON' (see conformance/manifest.py); a listed "
                     "case that fails is xfail (not a failure), one that passes is xpass")
    run.add_argument("--skips", metavar="FILE", help="cases not to run, same format; they are reported skipped")
    run.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                     help="worker processes running cases (default: one per core)")
    run.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT,
                     help=f"seconds one case may run before its worker is killed (default {DEFAULT_TIMEOUT:g})")
    run.add_argument("--batch", type=int, default=DEFAULT_BATCH_SIZE,
                     help=f"cases a worker runs together (the jax backend compiles them as one program; a failing "
                     f"case is run again alone); 1 runs each case alone (default {DEFAULT_BATCH_SIZE})")
    run.add_argument("--no-isolation", action="store_true",
                     help="run the cases in this process (no crash or hang protection, no --timeout)")
    run.add_argument("--results", help="append each result to this JSONL file as it comes")
    run.add_argument("--resume", metavar="JSONL",
                     help="skip the cases already in this results file and append the rest to it")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    run.add_argument("-v", "--verbose", action="store_true", help="print every failing case's reproduction")
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
    sub.add_parser("list", help="list ops with specs and the available backends")
    fz = sub.add_parser("fuzz", help="differential search: random valid programs on the reference and a backend")
    fz.add_argument("--examples", type=int, default=200, help="how many programs to run")
    fz.add_argument("--seed", type=int, default=0, help="seed of the search")
    fz.add_argument("--ops", default="", help="comma-separated op names to draw from (default: every op)")
    fz.add_argument("--max-steps", type=int, default=5, help="longest chain of ops in one program")
    fz.add_argument("--backend", default="jax", help="the backend compared with the reference")
    fz.add_argument("-v", "--verbose", action="store_true", help="list every disagreement, not one per cause")
    cov = sub.add_parser("coverage", help="list the arguments and documented edges that no case exercises")
    cov.add_argument("--ops", default="", help="comma-separated op names (default: every op with a spec)")
    cov.add_argument("--seed", type=int, default=0, help="seed for generated cases")
    cov.add_argument("--json", action="store_true", help="print {op: [uncovered items]} as JSON")
    cov.add_argument("--check", action="store_true", help="exit 1 if the list differs from the allowlist")
    cov.add_argument("--write-allowlist", action="store_true", help="write the list to the allowlist file")
    return p


def _coverage(args: argparse.Namespace, all_specs: dict) -> int:
    from conformance import coverage

    names = [n.strip() for n in args.ops.split(",") if n.strip()]
    unknown = [n for n in names if n not in all_specs]
    if unknown:
        print(f"error: no spec for {', '.join(unknown)}", file=sys.stderr)
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
    if args.command in ("report", "compare"):
        return _report_command(args)
    all_specs = specs.load_all()
    if args.command == "coverage":
        return _coverage(args, all_specs)
    if args.command == "list":
        print("backends:", ", ".join(available_backends()))
        for name, spec in all_specs.items():
            print(f"{name:<28} {spec.family:<20} {spec.category}")
        return 0
    names = [n.strip() for n in args.ops.split(",") if n.strip()] or list(all_specs)
    if args.command == "fuzz":
        return _fuzz(args, names, all_specs)
    kinds = set(args.kinds.split(","))
    try:
        xfails = Manifest.read(args.xfails) if args.xfails else None
        skips = Manifest.read(args.skips) if args.skips else None
        done = read_journal(args.resume) if args.resume else {}
    except (OSError, ManifestError, JournalError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # the backend is constructed in a worker (its abort or exception cannot end this process), which runs cases next
    first_worker = None
    try:
        if args.no_isolation:
            backend = _ops_and_backend(args, names, all_specs)
        elif not _ops_and_backend(args, names, all_specs, construct=False):
            backend = None
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
    progress = RunProgress(names, quiet=args.quiet)
    order: dict[str, int] = {}

    def to_run() -> Iterator[Case]:
        for name in names:
            every = cases_for(all_specs[name], args.seed)
            cases = [c for c in every if c.kind in kinds]
            for manifest in (xfails, skips):  # an entry matching a case of the run's ops is not stale
                if manifest:
                    manifest.note_cases(c.id for c in every)
            progress.expect(name, len(cases))
            for case in cases:
                order[case.id] = len(order)
                skip = skips.match(case.id) if skips else None
                if skip:
                    on_result(skipped(case, skip), record=False)
                elif case.id in done:
                    on_result(result_from_record(case, done[case.id]), record=False)
                else:
                    yield case

    def on_result(result: Result, record: bool = True) -> None:
        results.append(result)
        if journal and record:
            journal.append(result)
        entry = xfails.match(result.case.id) if xfails else None
        if entry:
            result = as_xfail(result, entry)
            results[-1] = result
        progress.add(result)

    try:
        if args.no_isolation:
            enable_compilation_cache()
            run_cases(to_run(), backend, on_result, profile=args.profile, batch_size=args.batch)
        else:
            with IsolatedRunner(args.backend, jobs=args.jobs, timeout=args.timeout, profile=args.profile,
                                batch_size=args.batch, workers=[first_worker] if first_worker else ()) as runner:
                runner.run(to_run(), on_result)
    except WorkerStartError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        progress.finish()
        if journal:
            journal.close()
    results.sort(key=lambda r: order[r.case.id])
    seconds = time.perf_counter() - start
    failed = [r for r in results if r.status in FAILURES]
    options = {"ops": [n.strip() for n in args.ops.split(",") if n.strip()] or None, "kinds": sorted(kinds),
               "jobs": None if args.no_isolation else args.jobs,
               "timeout": None if args.no_isolation else args.timeout, "isolation": not args.no_isolation}
    manifests = {"xfails": xfails.summary(names) if xfails else None,
                 "skips": skips.summary(names) if skips else None}
    report = build_report(results, backend, seconds=seconds, seed=args.seed, profile=args.profile, options=options,
                          started=started, manifests=manifests)
    print()
    print(scoreboard_text(report))
    if chosen_outcomes_text(report):
        print("\n" + chosen_outcomes_text(report))
    print(f"\nbackend {backend.name}, profile {args.profile}: {len(results)} cases in {seconds:.1f} s "
          "(. passed, F failed, C crashed, T timed out, u unsupported, i implementation-defined, "
          "x xfail, X xpass, s skipped)")
    for r in results:
        if r.status == XPASS:
            print(f"XPASS {r.case.id}: listed as xfail ({r.reason}) but passed")
    for line in stale_lines(report):
        print(f"warning: {line}", file=sys.stderr)
    for r in failed[: None if args.verbose else 10]:
        print(f"\n{r.status.upper()} {r.case.id}: {r.message}\n--- reproduction ---\n{r.reproduction}")
    if len(failed) > 10 and not args.verbose:
        print(f"\n... and {len(failed) - 10} more failures (use -v or --report)")
    for path, fmt in ((args.report, "json"), (args.junit, "junit"), (args.markdown, "md"), (args.html, "html")):
        if path:
            _write(path, render(report, fmt))
    return 1 if failed else 0


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


def _ops_and_backend(args: argparse.Namespace, names: list[str], all_specs: dict, construct: bool = True) -> Any:
    """The backend ``--backend`` names (with ``construct``; else True), or None (with an error printed) for an
    unknown op or a backend that does not load (its constructor's exception named, never a traceback)."""
    unknown = [n for n in names if n not in all_specs]
    if unknown:
        print(f"error: no spec for {', '.join(unknown)}", file=sys.stderr)
        return None
    if not construct:
        return True
    try:
        return get_backend(args.backend)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
    except Exception as e:  # a backend's own constructor
        print(f"error: the backend '{args.backend}' could not be constructed: {type(e).__name__}: {e}",
              file=sys.stderr)
    return None


def _fuzz(args: argparse.Namespace, names: list[str], all_specs: dict) -> int:
    from conformance.fuzz import fuzz, summary_text

    backend = _ops_and_backend(args, names, all_specs)
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
    report = fuzz(args.examples, args.seed, names, args.max_steps, backend, progress)
    print(summary_text(report, args.verbose))
    print(f"\nfuzz seed {args.seed} on {backend.name}: {report.programs} programs in "
          f"{time.perf_counter() - start:.1f} s, {len(report.findings)} disagreements")
    return 1 if report.findings else 0
