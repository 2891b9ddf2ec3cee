"""The JSON report: one object (schema ``report_schema.json``, documented in docs/report_schema.md)
from which every other format (conformance/render.py) and ``compare`` (conformance/compare_reports.py) work."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from collections import Counter, defaultdict
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from conformance.cases import PROGRAM
from conformance.manifest import SKIPPED, XFAIL, XPASS
from conformance.outcomes import SPEC
from conformance.runner import (
    CRASHED,
    FAILED,
    FAILURES,
    IMPL_DEFINED,
    PASSED,
    TIMED_OUT,
    UNSUPPORTED,
    Result,
    clean_text,
)
from conformance.schema_check import validate

SCHEMA_VERSION = "1.1"
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_schema.json")
STATUSES = (PASSED, FAILED, CRASHED, TIMED_OUT, UNSUPPORTED, IMPL_DEFINED, XFAIL, XPASS, SKIPPED)
PACKAGE = "xla-semantics"


class ReportError(ValueError):
    """A file that is not a valid report (names the file and the violations)."""


def build_report(results: list[Result], backend: Any, *, seconds: float, seed: int, profile: str = SPEC,
                 options: dict[str, Any] | None = None, started: datetime | None = None,
                 manifests: dict[str, dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """The report of one run; ``backend`` is the backend object (or just its name)."""
    cases = [case_record(r) for r in results]
    totals, ops = summarize(cases)
    return {
        "schema_version": SCHEMA_VERSION,
        "suite": suite_info(),
        "backend": backend_info(backend),
        "profile": profile,
        "seed": seed,
        "options": dict(options or {}),
        "started": (started or datetime.now(UTC)).isoformat(timespec="seconds"),
        "seconds": round(seconds, 3),
        "environment": {"python": platform.python_version(), "host": platform.platform(),
                        "numpy": _version("numpy")},
        "manifests": {"xfails": None, "skips": None, **(manifests or {})},
        "totals": totals,
        "ops": ops,
        "cases": cases,
    }


def case_record(r: Result) -> dict[str, Any]:
    case = r.case
    name = case.id.removeprefix(f"{case.op}/{case.kind}/").removeprefix(f"{PROGRAM}/")
    form = case.operand_form if case.id.endswith(f"/{case.operand_form}") else None
    if form:
        name = name.removesuffix(f"/{form}")
    devices = case.device_count if getattr(case, "devices", None) else None  # (replicas, partitions): R * P
    return {"id": case.id, "op": case.op, "kind": case.kind, "name": name,
            **({"operand_form": form} if form else {}), **({"devices": int(devices)} if devices else {}),
            "status": r.status, **({"outcome": r.outcome} if r.outcome else {}),
            **({"reason": r.reason} if r.reason else {}),
            "message": r.message, "seconds": round(r.seconds, 4),
            **({"reproduction": r.reproduction} if r.reproduction else {}),
            **({"chosen": r.chosen} if r.chosen else {}),
            **({"program": r.program} if r.program is not None else {})}


def summarize(cases: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    """Totals by status and the per-op summary ``{op: {cases, seconds, counts}}`` (ops sorted)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    seconds: Counter = Counter()
    for c in cases:
        counts[c["op"]][c["status"]] += 1
        seconds[c["op"]] += c["seconds"]
    totals = Counter(c["status"] for c in cases)
    ops = {op: {"cases": sum(counts[op].values()), "seconds": round(seconds[op], 4), "counts": _ordered(counts[op])}
           for op in sorted(counts)}
    return _ordered(totals), ops


def _ordered(counter: Counter) -> dict[str, int]:
    return {s: counter[s] for s in STATUSES if counter[s]}


def failing(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The cases that fail the run (failed, crashed, timed out; not xfail)."""
    return [c for c in report["cases"] if c["status"] in FAILURES]


def backend_info(backend: Any) -> dict[str, Any]:
    """Name, version, platform and device of a backend, from its optional ``info()`` (or ``info`` dict).

    Keys other than version/platform/device go under ``details``; a failing ``info()`` is recorded there.
    """
    info: dict[str, Any] = {"name": clean_text(backend if isinstance(backend, str) else getattr(backend, "name", backend)),
                            "version": None, "platform": None, "device": None}
    declared = None if isinstance(backend, str) else getattr(backend, "info", None)
    details: dict[str, Any] = {}
    try:
        declared = declared() if callable(declared) else declared
    except Exception as e:  # a third-party backend's bug must not lose the report
        declared, details["info_error"] = None, clean_text(f"{type(e).__name__}: {e}"[:500])
    if isinstance(declared, dict):
        for key, value in declared.items():
            if key in ("version", "platform", "device"):
                info[key] = None if value is None else clean_text(value)
            else:
                details[clean_text(key)] = (clean_text(value) if isinstance(value, str) else value
                                            if value is None or isinstance(value, (int, float, bool)) else clean_text(value))
    if details:
        info["details"] = details
    return info


def suite_info() -> dict[str, Any]:
    """The suite's package version and the git commit of its checkout (None outside one)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    commit = _git(root, "rev-parse", "HEAD")
    status = _git(root, "status", "--porcelain", "--untracked-files=no") if commit else None
    return {"name": PACKAGE, "version": _version(PACKAGE), "commit": commit,
            "dirty": None if status is None else bool(status)}


def _git(root: str, *args: str) -> str | None:
    try:
        proc = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def schema() -> dict[str, Any]:
    with open(SCHEMA_PATH) as f:
        return json.load(f)  # type: ignore[no-any-return]


def validate_report(report: Any) -> list[str]:
    """The report's violations of the schema (empty: valid)."""
    return validate(report, schema())


#: The largest report file read back (bytes): a full run with reproductions is a few MB.
MAX_REPORT_BYTES = 256 << 20


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number a report holds")


def consistency_errors(report: dict[str, Any]) -> list[str]:
    """What a report that follows the schema may still get wrong, which its readers rely on: each case's op has
    a summary in ``ops``, and case ids are unique."""
    errors = []
    seen: set[str] = set()
    for i, c in enumerate(report["cases"]):
        if c["op"] not in report["ops"]:
            errors.append(f"$.cases[{i}].op: '{c['op']}' has no summary in $.ops")
        if c["id"] in seen:
            errors.append(f"$.cases[{i}].id: '{c['id']}' is the id of an earlier case")
        seen.add(c["id"])
        if len(errors) > 10:
            break
    return errors


def load_report(path: str) -> dict[str, Any]:
    """A report read from ``path`` and checked against the schema (and :func:`consistency_errors`), else a
    ReportError naming the file and what is wrong: unreadable, too large, not UTF-8, not JSON, not a report."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_REPORT_BYTES + 1)
    except OSError as e:
        raise ReportError(f"{path}: cannot read a JSON report: {e.strerror or e}") from None
    if len(data) > MAX_REPORT_BYTES:
        raise ReportError(f"{path}: larger than {MAX_REPORT_BYTES >> 20} MiB, not a report this suite writes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ReportError(f"{path}:{line}: not UTF-8 text (byte {data[e.start]:#04x} at offset {e.start})") from None
    try:
        report = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise ReportError(f"{path}:{e.lineno}:{e.colno}: cannot read a JSON report: {e.msg}") from None
    except (ValueError, RecursionError) as e:  # NaN/Infinity, a number of thousands of digits, deep nesting
        raise ReportError(f"{path}: cannot read a JSON report: {type(e).__name__}: {str(e)[:200]}") from None
    try:
        errors = validate_report(report)
        if not errors:
            errors = consistency_errors(report)
    except RecursionError:
        raise ReportError(f"{path}: values nested too deep for a conformance report") from None
    if errors:
        shown = "\n  ".join(errors[:10]) + (f"\n  ... and {len(errors) - 10} more" if len(errors) > 10 else "")
        raise ReportError(f"{path} is not a conformance report of schema {SCHEMA_VERSION}:\n  {shown}")
    return report  # type: ignore[no-any-return]


def write_json(path: str, report: dict[str, Any]) -> None:
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
