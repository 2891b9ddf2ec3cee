"""A results journal: one JSON line per finished case, appended as results come in.

An interrupted run keeps every line it wrote; ``python -m conformance run --resume run.jsonl``
reads them back, skips those cases, and appends the rest to the same file. Each line records the backend,
the profile and the seed its case ran with, and a resumed run refuses a journal written with another one
(:func:`resume_problem`): another seed gives generated cases of the same ids other inputs.

A journal is read back as data and checked: a line that is not JSON (the torn last line of a killed run)
is skipped, and its case runs again; a line that is JSON but not a record of the suite (a field missing or of
the wrong type, an unknown status, bytes that are not UTF-8, a line over :data:`MAX_LINE` bytes) is a
:class:`JournalError` naming the file, the line and the field.
"""

from __future__ import annotations

import json
import math
import os
from typing import IO, Any

from conformance.build import reproduction
from conformance.cases import PROGRAM, Case
from conformance.outcomes import PROFILES, SPEC
from conformance.runner import CRASHED, FAILED, FAILURES, IMPL_DEFINED, PASSED, TIMED_OUT, UNSUPPORTED, Result

#: The statuses a journal records (the runner's; a manifest's xfail/skip is applied when the run reads it).
STATUSES = (PASSED, FAILED, CRASHED, TIMED_OUT, UNSUPPORTED, IMPL_DEFINED)
#: The longest line a journal may hold (a record with its reproduction is far shorter).
MAX_LINE = 16 << 20


class JournalError(ValueError):
    """A journal line that is not a record of the suite (names the file, the line and the field)."""


def result_record(result: Result, backend: str, profile: str = SPEC, seed: int = 0) -> dict[str, Any]:
    return {"id": result.case.id, "op": result.case.op, "kind": result.case.kind, "backend": backend,
            "profile": profile, "seed": seed, "status": result.status, "message": result.message,
            "seconds": round(result.seconds, 4),
            **({"reproduction": result.reproduction} if result.reproduction else {}),
            **({"chosen": result.chosen} if result.chosen else {}),
            **({"program": result.program} if result.program is not None else {})}


def _check_record(record: Any, where: str) -> dict[str, Any]:
    """``record`` if it is a journal record (every field of its type), else a JournalError."""
    if not isinstance(record, dict):
        raise JournalError(f"{where}: expected a JSON object (a result record), got {type(record).__name__}")

    def fail(field: str, expected: str) -> JournalError:
        value = repr(record.get(field))
        return JournalError(f"{where}: field '{field}': expected {expected}, got "
                            f"{value if len(value) <= 80 else value[:77] + '...'}")

    for field in ("id", "status"):
        if field not in record:
            raise JournalError(f"{where}: missing field '{field}'")
    for field in ("id", "op", "kind", "backend", "message", "reproduction"):
        if field in record and not isinstance(record[field], str):
            raise fail(field, "a string")
    if record["status"] not in STATUSES:
        raise fail("status", f"one of {', '.join(STATUSES)}")
    if "profile" in record and record["profile"] not in PROFILES:
        raise fail("profile", f"one of {', '.join(PROFILES)}")
    if "seed" in record and (type(record["seed"]) is not int):
        raise fail("seed", "an integer")
    seconds = record.get("seconds", 0.0)
    if type(seconds) not in (int, float) or not math.isfinite(seconds) or seconds < 0:
        raise fail("seconds", "a finite number >= 0")
    chosen = record.get("chosen", {})
    if not isinstance(chosen, dict) or not all(
            isinstance(k, str) and isinstance(v, dict)
            and all(isinstance(o, str) and type(n) is int for o, n in v.items()) for k, v in chosen.items()):
        raise fail("chosen", "{entry id: {outcome: count}}")
    if "program" in record and not isinstance(record["program"], dict):
        raise fail("program", "an object (a program case's details)")
    return record


def read_journal(path: str) -> dict[str, dict[str, Any]]:
    """The records of a journal by case id (a line that is not JSON, the torn line of a killed run, is skipped);
    a JournalError for a line that is JSON but not a record."""
    records: dict[str, dict[str, Any]] = {}
    if not os.path.exists(path):
        return records
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as e:
        raise JournalError(f"{path}: cannot read the journal: {e.strerror or e}") from None
    with f:
        number = 0
        while True:
            raw = f.readline(MAX_LINE + 1)
            if not raw:
                break
            number += 1
            where = f"{path}:{number}"
            if len(raw) > MAX_LINE:
                raise JournalError(f"{where}: a line longer than {MAX_LINE} bytes is not a journal record")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise JournalError(f"{where}: not UTF-8 text (byte {raw[e.start]:#04x} at column {e.start + 1})") \
                    from None
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue  # a torn line: its case runs again
            record = _check_record(record, where)
            records[record["id"]] = record
    return records


def resume_problem(path: str, records: dict[str, dict[str, Any]], backend: str, profile: str, seed: int) -> str | None:
    """Why the run of ``backend``, ``profile`` and ``seed`` cannot resume the journal ``path`` holding ``records``
    (its results would not be this run's), or None."""
    def other(field: str, default: Any, this: Any) -> list[str]:
        return sorted({str(r.get(field, default)) for r in records.values()} - {str(this)})

    if other("backend", None, backend):
        return f"{path} holds results of backend {', '.join(other('backend', None, backend))}, not {backend}"
    if other("profile", SPEC, profile):
        return f"{path} holds results of profile {', '.join(other('profile', SPEC, profile))}, not {profile}"
    unseeded = sum("seed" not in r for r in records.values())
    if unseeded:
        return (f"{path} holds {unseeded} results without the seed they ran with (an earlier version's journal): "
                f"generated cases of another seed have other inputs; run without --resume")
    if other("seed", None, seed):
        return (f"{path} holds results of --seed {', '.join(other('seed', None, seed))}, not --seed {seed}: "
                f"generated cases of another seed have other inputs; resume with that seed or start a new journal")
    return None


def result_from_record(case: Case, record: dict[str, Any], backend_spec: str | None = None) -> Result:
    """The result a journal's ``record`` holds for ``case``. With ``backend_spec`` (how the run names its backend, as
    ``get_backend`` takes it), a failure's reproduction is written again by this version's ``reproduction`` (the
    journal's may come from an earlier one, which wrote snippets that no longer run); a program case's reproduction
    is its localised op's, which only a run of the program finds, so it stays the journal's."""
    status = record["status"]
    repro = record.get("reproduction", "")
    if backend_spec is not None and status in FAILURES and case.kind != PROGRAM:
        repro = reproduction(case, backend_spec)
    return Result(case, status, record.get("message", ""), repro, float(record.get("seconds", 0.0)),
                  dict(record.get("chosen") or {}), program=record.get("program"))


class Journal:
    """Appends each result to ``path`` as one JSON line, flushed at once."""

    def __init__(self, path: str, backend: str, profile: str = SPEC, seed: int = 0) -> None:
        self.backend = backend
        self.profile = profile
        self.seed = seed
        torn = os.path.exists(path) and os.path.getsize(path) > 0 and not _ends_with_newline(path)
        self._file: IO[str] = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        if torn:  # a run killed mid-line: start a fresh line
            self._file.write("\n")

    def append(self, result: Result) -> None:
        self._file.write(json.dumps(result_record(result, self.backend, self.profile, self.seed)) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _ends_with_newline(path: str) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"
