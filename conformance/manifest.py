"""xfail and skip manifests: case id patterns, each with a reason (``--xfails FILE``, ``--skips FILE``).

Format: one entry per line, ``PATTERN REASON``: the pattern (no spaces) is a glob over case ids
(``*`` matches any text, ``/`` included; ``?`` one character; ``[...]`` a set) and matches a case
when it matches the whole id or a ``/``-separated prefix of it: ``Pad`` names every Pad case,
``Pad/golden`` its golden cases, ``*/generated/f64`` every generated f64 case,
``Sort/golden/stable/param`` one case. The reason, the rest of the line, is required. Blank lines
and lines starting with ``#`` are ignored::

    # xfails for mybackend
    Cbrt/generated/bf16   cube root of bf16 rounds differently (issue 12)
    Sort/golden/stable    our sort is not stable

An entry whose pattern matches no case of the ops a run covers is stale: the run warns about it
and records it in the JSON report (``manifests``). Entries whose op part is a plain op name the run
did not cover are not checked, unless no op of that name has a spec (a typo or a removed op): that entry is stale.

A manifest is UTF-8 text of lines of at most :data:`MAX_LINE` characters; anything else is a
:class:`ManifestError` naming the file and the line. Matching a case looks up its id's prefixes among the
plain patterns and tries only the globs of its op (and those whose op part is a glob), so a manifest of tens
of thousands of entries costs about as much per case as a short one.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
from collections.abc import Iterable

from conformance.cases import Case
from conformance.runner import FAILURES, PASSED, Result

_GLOB = re.compile(r"[*?\[]")
#: The longest line a manifest may hold (characters).
MAX_LINE = 4096
#: Statuses a manifest gives: an xfail-listed case that failed (XFAIL) or passed (XPASS), a skip-listed case
#: that was not run (SKIPPED). The case's own status stays in the report as its ``outcome``.
XFAIL, XPASS, SKIPPED = "xfail", "xpass", "skipped"


class ManifestError(ValueError):
    """A manifest line that is not ``PATTERN REASON`` (names the file and line)."""


@dataclasses.dataclass(frozen=True)
class Entry:
    pattern: str
    reason: str
    line: int
    #: The file the entry is written in, when another manifest includes it ("" for the manifest's own lines).
    file: str = ""

    def matches(self, case_id: str) -> bool:
        return fnmatch.fnmatchcase(case_id, self.pattern) or fnmatch.fnmatchcase(case_id, self.pattern + "/*")

    @property
    def op(self) -> str | None:
        """The op the pattern names, or None when its op part is a glob."""
        head = self.pattern.split("/", 1)[0]
        return None if _GLOB.search(head) else head

    def record(self) -> dict[str, object]:
        out: dict[str, object] = {"pattern": self.pattern, "reason": self.reason, "line": self.line}
        if self.file:
            out["file"] = self.file
        return out


class Manifest:
    """The entries of one manifest file, and which of them matched a case."""

    def __init__(self, path: str, entries: list[Entry]) -> None:
        self.path = path
        self.entries = entries
        self.used: set[Entry] = set()

    @classmethod
    def _included(cls, line: str, path: str, number: int, including: tuple[str, ...]) -> list[Entry]:
        directive, _, name = line.partition(" ")
        if directive != "%include" or not name.strip():
            raise ManifestError(f"{path}:{number}: '{line}' is not a directive ('%include FILE' is the only one)")
        target = os.path.normpath(os.path.join(os.path.dirname(path), name.strip()))
        if target in including or target == os.path.normpath(path):
            raise ManifestError(f"{path}:{number}: '%include {name.strip()}' includes itself (through "
                                f"{' -> '.join((*including, path))})")
        included = cls.read(target, (*including, os.path.normpath(path)))
        return [dataclasses.replace(e, file=e.file or target) for e in included.entries]

    @classmethod
    def read(cls, path: str, _including: tuple[str, ...] = ()) -> Manifest:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ManifestError(f"{path}: cannot read the manifest: {e.strerror or e}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data.count(b"\n", 0, e.start) + 1
            raise ManifestError(f"{path}:{line}: not UTF-8 text (byte {data[e.start]:#04x}); a manifest is UTF-8 "
                                "lines 'PATTERN REASON'") from None
        return cls.parse(text, path, _including)

    @classmethod
    def parse(cls, text: str, path: str = "<manifest>", _including: tuple[str, ...] = ()) -> Manifest:
        """The entries of ``text``; a line ``%include FILE`` adds FILE's entries (FILE relative to ``path``'s
        folder: a manifest of departures several backends share, included by each backend's own manifest)."""
        entries = []
        for number, line in enumerate(text.split("\n"), 1):
            if len(line) > MAX_LINE:
                raise ManifestError(f"{path}:{number}: a line of {len(line)} characters (at most {MAX_LINE})")
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("%"):
                entries.extend(cls._included(line, path, number, _including))
                continue
            pattern, *rest = re.split(r"\s+", line, maxsplit=1)
            reason = rest[0].strip() if rest else ""
            if not reason:
                raise ManifestError(f"{path}:{number}: '{pattern}' has no reason (write 'PATTERN REASON')")
            if not pattern.isprintable() or not reason.replace("\t", " ").isprintable():
                raise ManifestError(f"{path}:{number}: control characters in '{pattern}' (write 'PATTERN REASON')")
            entries.append(Entry(pattern, reason, number))
        return cls(path, entries)

    def _index(self) -> None:
        """The entries by how they can match: plain patterns by text, globs by their plain op part, the rest."""
        self._plain: dict[str, list[int]] = {}
        self._by_op: dict[str, list[int]] = {}
        self._wild: list[int] = []
        for i, entry in enumerate(self.entries):
            if not _GLOB.search(entry.pattern):
                self._plain.setdefault(entry.pattern, []).append(i)
            elif entry.op is not None:
                self._by_op.setdefault(entry.op, []).append(i)
            else:
                self._wild.append(i)
        self._indexed = len(self.entries)
        self._any: dict[str | None, re.Pattern[str]] = {}

    def _globs_may_match(self, op: str | None, indices: list[int], case_id: str) -> bool:
        """Whether any of the globs ``indices`` (those of ``op``, or the wild ones for None) matches ``case_id``:
        one regular expression for all of them, so that a case no glob matches costs one search."""
        if op not in self._any:
            patterns = [self.entries[i].pattern for i in indices]
            self._any[op] = re.compile("|".join(f"(?:{fnmatch.translate(p)})|(?:{fnmatch.translate(p + '/*')})"
                                                for p in patterns))
        return self._any[op].match(case_id) is not None

    def match(self, case_id: str) -> Entry | None:
        """The first entry matching ``case_id`` (every matching entry is marked as used)."""
        if getattr(self, "_indexed", None) != len(self.entries):
            self._index()
        found: list[int] = []
        parts = case_id.split("/")
        for k in range(1, len(parts) + 1):  # a plain pattern matches the id or a /-separated prefix of it
            found += self._plain.get("/".join(parts[:k]), ())
        for op, globs in ((parts[0], self._by_op.get(parts[0])), (None, self._wild)):
            if globs and self._globs_may_match(op, globs, case_id):
                found += (i for i in globs if self.entries[i].matches(case_id))
        for i in found:
            self.used.add(self.entries[i])
        return self.entries[min(found)] if found else None

    def note_cases(self, case_ids: Iterable[str]) -> None:
        """Mark the entries matching these ids as used (cases of the run's ops that it did not run)."""
        for case_id in case_ids:
            self.match(case_id)

    def stale(self, ops: Iterable[str], known: Iterable[str] | None = None) -> list[Entry]:
        """The entries that matched no case, leaving out those naming an op outside ``ops``; with ``known`` (every
        op with a spec), an entry naming an op not among them is stale whatever the run covered."""
        covered = set(ops)
        exists = None if known is None else set(known)
        return [e for e in self.entries if e not in self.used
                and (e.op is None or e.op in covered or (exists is not None and e.op not in exists))]

    def summary(self, ops: Iterable[str], known: Iterable[str] | None = None) -> dict[str, object]:
        return {"path": self.path, "entries": len(self.entries),
                "stale": [e.record() for e in self.stale(ops, known)]}

    def warnings(self, kind: str, ops: Iterable[str], known: Iterable[str] | None = None) -> list[str]:
        return [f"warning: {kind} {e.file or self.path}:{e.line}: '{e.pattern}' matches no case (stale entry; remove it)"
                for e in self.stale(ops, known)]


def as_xfail(result: Result, entry: Entry) -> Result:
    """``result`` of a case an xfail entry lists: XFAIL if it failed, XPASS if it passed; other
    statuses (unsupported, impl-defined) stay, with the entry's reason attached."""
    status = XFAIL if result.status in FAILURES else XPASS if result.status == PASSED else result.status
    outcome = result.status if status != result.status else ""
    return dataclasses.replace(result, status=status, outcome=outcome, reason=entry.reason)


def skipped(case: Case, entry: Entry) -> Result:
    return Result(case, SKIPPED, f"skipped: {entry.reason}", reason=entry.reason)
