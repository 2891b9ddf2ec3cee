"""``python -m conformance compare OLD.json NEW.json``: what changed between two reports.

Cases pair by id and are compared on their own status (``outcome`` for xfail and xpass, so a
manifest added or dropped changes nothing). A case regressed when it fails (failed, crashed, timed
out) in NEW but did not in OLD; it was fixed when it failed in OLD and passes (passed,
impl-defined) in NEW. Other status changes (e.g. passed -> unsupported) are listed apart. Exit
status: 0 no regression, 1 some regression, 2 a file is not a valid report.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from conformance.manifest import SKIPPED
from conformance.runner import FAILURES, IMPL_DEFINED, PASSED

_GOOD = (PASSED, IMPL_DEFINED)


@dataclasses.dataclass
class Change:
    id: str
    op: str
    old: str
    new: str
    message: str = ""


@dataclasses.dataclass
class ReportDiff:
    old: dict[str, Any]
    new: dict[str, Any]
    regressed: list[Change]
    fixed: list[Change]
    changed: list[Change]  # other status changes
    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]

    @property
    def ops(self) -> dict[str, dict[str, int]]:
        """Per op with changes: {op: {regressed, fixed, changed, added, removed}} (only non-zero)."""
        rows: dict[str, Counter] = {}
        for key, items in (("regressed", self.regressed), ("fixed", self.fixed), ("changed", self.changed)):
            for change in items:
                rows.setdefault(change.op, Counter())[key] += 1
        for key, cases in (("added", self.added), ("removed", self.removed)):
            for case in cases:
                rows.setdefault(case["op"], Counter())[key] += 1
        return {op: dict(rows[op]) for op in sorted(rows)}


def own_status(case: dict[str, Any]) -> str:
    return case.get("outcome") or case["status"]


def diff_reports(old: dict[str, Any], new: dict[str, Any]) -> ReportDiff:
    before = {c["id"]: c for c in old["cases"]}
    after = {c["id"]: c for c in new["cases"]}
    regressed, fixed, changed = [], [], []
    for case_id, n in after.items():
        o = before.get(case_id)
        if o is None:
            continue
        was, now = own_status(o), own_status(n)
        if was == now or SKIPPED in (was, now):
            continue
        change = Change(case_id, n["op"], was, now, n["message"] if now in FAILURES else "")
        if now in FAILURES and was not in FAILURES:
            regressed.append(change)
        elif was in FAILURES and now in _GOOD:
            fixed.append(change)
        else:
            changed.append(change)
    return ReportDiff(old, new, regressed, fixed, changed, [c for i, c in after.items() if i not in before],
                      [c for i, c in before.items() if i not in after])


def _describe(report: dict[str, Any]) -> str:
    b, s = report["backend"], report["suite"]
    return (f"{b['name']} {b.get('version') or ''} ({b.get('device') or b.get('platform') or '?'}), "
            f"suite {s.get('version') or '?'} {(s.get('commit') or '')[:12]}, profile {report['profile']}, "
            f"seed {report['seed']}, {report['started']}").replace("  ", " ")


def _mismatched_settings(d: ReportDiff) -> list[str]:
    notes = []
    for key in ("profile", "seed"):
        if d.old[key] != d.new[key]:
            notes.append(f"the reports differ in {key}: {d.old[key]} vs {d.new[key]}")
    if d.old["backend"]["name"] != d.new["backend"]["name"]:
        notes.append(f"the reports are of different backends: {d.old['backend']['name']} vs {d.new['backend']['name']}")
    return notes


def diff_text(d: ReportDiff, markdown: bool = False, limit: int = 50) -> str:
    """The diff for people: plain text, or Markdown with ``markdown=True``; at most ``limit`` cases per list."""
    h = (lambda t: f"## {t}") if markdown else (lambda t: f"{t}:")
    code = (lambda t: f"`{t}`") if markdown else (lambda t: t)
    lines = ["# Conformance report comparison" if markdown else "conformance report comparison", "",
             f"- old: {_describe(d.old)}", f"- new: {_describe(d.new)}"]
    lines += [f"- note: {n}" for n in _mismatched_settings(d)]
    lines += ["", f"{len(d.regressed)} regressed, {len(d.fixed)} fixed, {len(d.changed)} other status changes, "
              f"{len(d.added)} new cases, {len(d.removed)} removed cases."]

    def listing(title: str, items: list[Any], fmt: Any) -> None:
        if not items:
            return
        lines.extend(["", h(f"{title} ({len(items)})"), ""])
        lines.extend(f"- {fmt(x)}" for x in items[:limit])
        if len(items) > limit:
            lines.append(f"- ... and {len(items) - limit} more")

    def change(c: Change) -> str:
        first = c.message.splitlines()[0][:200] if c.message else ""
        return f"{code(c.id)}: {c.old} -> {c.new}" + (f": {first}" if first else "")

    listing("Regressed", d.regressed, change)
    listing("Fixed", d.fixed, change)
    listing("Other status changes", d.changed, change)
    listing("New cases", d.added, lambda c: f"{code(c['id'])}: {c['status']}")
    listing("Removed cases", d.removed, lambda c: f"{code(c['id'])} (was {c['status']})")
    ops = d.ops
    if ops:
        keys = ("regressed", "fixed", "changed", "added", "removed")
        lines += ["", h(f"Per op ({len(ops)} ops changed)"), ""]
        if markdown:
            lines += ["| op | " + " | ".join(keys) + " |", "|---" * (len(keys) + 1) + "|"]
            lines += [f"| {op} | " + " | ".join(str(row.get(k, 0)) for k in keys) + " |" for op, row in ops.items()]
        else:
            width = max(len(op) for op in ops)
            lines.append(f"{'op':<{width}}  " + "  ".join(f"{k:>9}" for k in keys))
            lines += [f"{op:<{width}}  " + "  ".join(f"{row.get(k, 0):>9}" for k in keys) for op, row in ops.items()]
    return "\n".join(lines) + "\n"
