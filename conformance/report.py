"""Reports: a per-op scoreboard (text and Markdown), JSON for machines, JUnit XML for CI."""

from __future__ import annotations

import json
import platform
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from datetime import UTC, datetime
from typing import Any

from conformance.outcomes import SPEC
from conformance.runner import CRASHED, FAILED, FAILURES, IMPL_DEFINED, PASSED, TIMED_OUT, UNSUPPORTED, Result

STATUSES = (PASSED, FAILED, CRASHED, TIMED_OUT, UNSUPPORTED, IMPL_DEFINED)


def scoreboard(results: list[Result]) -> dict[str, Counter]:
    board: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        board[r.case.op][r.status] += 1
    return dict(sorted(board.items()))


def totals(results: list[Result]) -> Counter:
    return Counter(r.status for r in results)


def chosen_outcomes(results: list[Result]) -> Counter:
    """How many cases chose each implementation-defined outcome: {(op, id, outcome): cases}."""
    return Counter((r.case.op, key, name) for r in results for key, c in r.chosen.items() for name in c)


def chosen_outcomes_text(results: list[Result]) -> str:
    chosen = chosen_outcomes(results)
    if not chosen:
        return ""
    lines = ["implementation-defined outcomes chosen (op: id = outcome, cases):"]
    lines += [f"  {op}: {key} = {name}, {n}" for (op, key, name), n in sorted(chosen.items())]
    return "\n".join(lines)


def scoreboard_text(results: list[Result]) -> str:
    board = scoreboard(results)
    width = max([len(op) for op in board] + [5])
    head = f"{'op':<{width}}  {'cases':>5}  " + "  ".join(f"{s:>{max(6, len(s))}}" for s in STATUSES)

    def row(name: str, c: Counter) -> str:
        return f"{name:<{width}}  {sum(c.values()):>5}  " + "  ".join(f"{c[s]:>{max(6, len(s))}}" for s in STATUSES)

    lines = [head, "-" * len(head)] + [row(op, c) for op, c in board.items()]
    lines += ["-" * len(head), row("total", totals(results))]
    return "\n".join(lines)


def to_json(results: list[Result], backend: str, seconds: float, seed: int, profile: str = SPEC) -> dict[str, Any]:
    import jax

    return {
        "backend": backend,
        "profile": profile,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "seed": seed,
        "seconds": round(seconds, 3),
        "environment": {"python": platform.python_version(), "jax": jax.__version__,
                        "platform": platform.platform()},
        "totals": dict(totals(results)),
        "scoreboard": {op: dict(c) for op, c in scoreboard(results).items()},
        "cases": [{"id": r.case.id, "op": r.case.op, "kind": r.case.kind, "status": r.status,
                   "message": r.message, "seconds": round(r.seconds, 4),
                   **({"devices": {"replicas": r.case.devices[0], "partitions": r.case.devices[1]}}
                      if getattr(r.case, "devices", None) else {}),
                   **({"chosen": r.chosen} if r.chosen else {}),
                   **({"reproduction": r.reproduction} if r.reproduction else {})} for r in results],
    }


def write_json(path: str, results: list[Result], backend: str, seconds: float, seed: int,
               profile: str = SPEC) -> None:
    with open(path, "w") as f:
        json.dump(to_json(results, backend, seconds, seed, profile), f, indent=1)


def write_junit(path: str, results: list[Result], backend: str, profile: str = SPEC) -> None:
    suites = ET.Element("testsuites", name=f"conformance-{backend}-{profile}")
    by_op: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_op[r.case.op].append(r)
    for op, rs in sorted(by_op.items()):
        c = Counter(r.status for r in rs)
        suite = ET.SubElement(suites, "testsuite", name=op, tests=str(len(rs)), failures=str(c[FAILED]),
                              errors=str(c[CRASHED] + c[TIMED_OUT]), skipped=str(c[UNSUPPORTED] + c[IMPL_DEFINED]))
        for r in rs:
            tc = ET.SubElement(suite, "testcase", classname=f"{backend}.{op}", name=r.case.id,
                               time=f"{r.seconds:.4f}")
            if r.status == FAILED:
                ET.SubElement(tc, "failure", message=r.message[:500]).text = r.reproduction
            elif r.status in (CRASHED, TIMED_OUT):
                ET.SubElement(tc, "error", type=r.status, message=r.message[:500]).text = r.reproduction
            elif r.status in (UNSUPPORTED, IMPL_DEFINED):
                ET.SubElement(tc, "skipped", message=f"{r.status}: {r.message[:500]}")
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def write_markdown(path: str, results: list[Result], backend: str, seconds: float, profile: str = SPEC) -> None:
    board = scoreboard(results)
    t = totals(results)
    lines = [f"# Conformance: backend `{backend}`, profile `{profile}`", "",
             f"{sum(t.values())} cases in {seconds:.1f} s: " + ", ".join(f"{t[s]} {s}" for s in STATUSES) + ".", "",
             "| op | cases | " + " | ".join(STATUSES) + " |", "|---" * (len(STATUSES) + 2) + "|"]
    for op, c in board.items():
        lines.append(f"| {op} | {sum(c.values())} | " + " | ".join(str(c[s]) for s in STATUSES) + " |")
    chosen = [r for r in results if r.status == IMPL_DEFINED]
    if chosen:
        lines += ["", "## Implementation-defined outcomes chosen", ""]
        lines += ["| op | id | outcome | cases |", "|---|---|---|---|"]
        lines += [f"| {op} | {key} | {name} | {n} |" for (op, key, name), n in sorted(chosen_outcomes(results).items())]
        lines += [""] + [f"- `{r.case.id}`: {r.message}" for r in chosen]
    failed = [r for r in results if r.status == FAILED]
    failed = [r for r in results if r.status in FAILURES]
    if failed:
        lines += ["", "## Failures", ""]
        for r in failed:
            lines += [f"### {r.case.id} ({r.status})", "", r.message, "", "```python", r.reproduction, "```", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
