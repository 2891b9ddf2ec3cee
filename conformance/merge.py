"""``python -m conformance merge shard1.json ... -o all.json``: the JSON reports of the shards of one run
(``run --shard K/N``, K = 1..N) joined into the report the unsharded run gives: its cases in the unsharded
run's order (the specs' order, each op's cases as generated), totals and per-op summaries recomputed, the
seconds summed, the earliest start, and a manifest entry stale only where every shard found it stale."""

from __future__ import annotations

import copy
from typing import Any

import specs
from conformance.generate import cases_for
from conformance.report import ReportError, summarize

#: The report fields every shard of one run shares.
_SAME = ("schema_version", "backend", "profile", "seed")


def shard_of(report: dict[str, Any]) -> tuple[int, int] | None:
    """(K, N) from a report's ``options.shard`` (``"K/N"``), or None for an unsharded run."""
    text = report.get("options", {}).get("shard")
    if not isinstance(text, str):
        return None
    k, _, n = text.partition("/")
    return int(k), int(n)


def merge_reports(reports: list[dict[str, Any]], names: list[str] | None = None) -> dict[str, Any]:
    """One report from the shards' reports (``names``: their file names, for the errors)."""
    names = names or [f"report {i + 1}" for i in range(len(reports))]
    shards = [shard_of(r) for r in reports]
    missing = [n for n, s in zip(names, shards) if s is None]
    if missing:
        raise ReportError(f"{', '.join(missing)}: not the report of a shard (run --shard K/N)")
    counts = {s[1] for s in shards if s}
    if len(counts) != 1:
        raise ReportError(f"the reports come from splits into different numbers of shards: {sorted(counts)}")
    count = counts.pop()
    indexes = sorted(s[0] for s in shards if s)
    if indexes != list(range(1, count + 1)):
        absent = sorted(set(range(1, count + 1)) - set(indexes))
        twice = sorted({i for i in indexes if indexes.count(i) > 1})
        raise ReportError(f"shards of {count}: " + "; ".join(
            ([f"missing {', '.join(f'{i}/{count}' for i in absent)}"] if absent else [])
            + ([f"given twice {', '.join(f'{i}/{count}' for i in twice)}"] if twice else [])))
    first = reports[0]
    for key in _SAME:
        values = {repr(r.get(key) if key != "backend" else r["backend"].get("name")) for r in reports}
        if len(values) > 1:
            raise ReportError(f"the shards differ in {key}: {', '.join(sorted(values))}")
    options = [{k: v for k, v in r["options"].items() if k != "shard"} for r in reports]
    if any(o != options[0] for o in options):
        raise ReportError("the shards were run with different options: "
                          + "; ".join(f"{n}: {o}" for n, o in zip(names, options)))
    cases = [c for r in reports for c in r["cases"]]
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        raise ReportError("a case is in more than one shard: "
                          + ", ".join(sorted({i for i in ids if ids.count(i) > 1})[:5]))
    merged = copy.deepcopy(first)
    merged["options"] = options[0]
    merged["cases"] = sorted(cases, key=_order(cases, first["seed"]))
    merged["totals"], merged["ops"] = summarize(merged["cases"])
    merged["seconds"] = round(sum(r["seconds"] for r in reports), 3)
    merged["started"] = min(r["started"] for r in reports)
    for kind, manifest in first["manifests"].items():
        if manifest:
            stale = [{(e["line"], e["pattern"]) for e in (r["manifests"].get(kind) or {}).get("stale", [])}
                     for r in reports]
            everywhere = set.intersection(*stale)
            merged["manifests"][kind]["stale"] = [e for e in manifest["stale"]
                                                  if (e["line"], e["pattern"]) in everywhere]
    return merged


def _order(cases: list[dict[str, Any]], seed: int) -> Any:
    """The sort key giving the unsharded run's order: ops in spec order, each op's cases as generated."""
    all_specs = specs.load_all()
    ops = {c["op"] for c in cases}
    position: dict[str, int] = {}
    for name in all_specs:
        if name in ops:
            for case in cases_for(all_specs[name], seed):
                position.setdefault(case.id, len(position))
    return lambda c: (position.get(c["id"], len(position)), c["id"])
