"""A results journal: one JSON line per finished case, appended as results come in.

An interrupted run keeps every line it wrote; ``python -m conformance run --resume run.jsonl``
reads them back, skips those cases, and appends the rest to the same file.
"""

from __future__ import annotations

import json
import os
from typing import IO, Any

from conformance.cases import Case
from conformance.outcomes import SPEC
from conformance.runner import Result


def result_record(result: Result, backend: str, profile: str = SPEC) -> dict[str, Any]:
    return {"id": result.case.id, "op": result.case.op, "kind": result.case.kind, "backend": backend,
            "profile": profile, "status": result.status, "message": result.message,
            "seconds": round(result.seconds, 4),
            **({"reproduction": result.reproduction} if result.reproduction else {}),
            **({"chosen": result.chosen} if result.chosen else {})}


def read_journal(path: str) -> dict[str, dict[str, Any]]:
    """The records of a journal by case id (a torn last line, from a killed run, is ignored)."""
    records: dict[str, dict[str, Any]] = {}
    if not os.path.exists(path):
        return records
    with open(path) as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "id" in record and "status" in record:
                records[record["id"]] = record
    return records


def result_from_record(case: Case, record: dict[str, Any]) -> Result:
    return Result(case, record["status"], record.get("message", ""), record.get("reproduction", ""),
                  float(record.get("seconds", 0.0)), dict(record.get("chosen") or {}))


class Journal:
    """Appends each result to ``path`` as one JSON line, flushed at once."""

    def __init__(self, path: str, backend: str, profile: str = SPEC) -> None:
        self.backend = backend
        self.profile = profile
        torn = os.path.exists(path) and os.path.getsize(path) > 0 and not _ends_with_newline(path)
        self._file: IO[str] = open(path, "a")  # noqa: SIM115 - closed by close()
        if torn:  # a run killed mid-line: start a fresh line
            self._file.write("\n")

    def append(self, result: Result) -> None:
        self._file.write(json.dumps(result_record(result, self.backend, self.profile)) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _ends_with_newline(path: str) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"
