"""The support matrix: ops x backends, from the committed JSON conformance reports under ``reports/<backend>/``.

Each cell counts one backend's cases of one op by status (passed, failed, unsupported, implementation-defined,
...) and is colour-coded by the worst of them: ``fail`` (a failed, crashed or timed-out case, or an xpass),
``unsupported``, ``impl`` (implementation-defined outcomes, nothing worse), ``pass`` (every case passed),
``none`` (the backend's report has no case of the op).

Every value that comes from a report (its backend's name, version, platform and device, its suite, the op names
it lists, its counts) goes into the page through :func:`conformance.render.md_text`, so a report cannot put HTML,
a link or a table cell into the page: it shows as the text it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from conformance.manifest import XPASS
from conformance.render import headline, md_text, totals_line
from conformance.report import load_report
from conformance.runner import FAILURES, IMPL_DEFINED, PASSED, UNSUPPORTED
from specs.loader import OpSpec, by_category

#: The backends the matrix shows, in column order, when their report is committed.
BACKENDS = ("reference", "jax", "pallas", "iree")
REPORT_NAME = "report.json"
#: A cell's colour class -> what it means (the legend).
LEGEND = {
    "pass": "every case passed",
    "impl": "passed, some with an allowed implementation-defined outcome",
    "unsupported": "some cases unsupported by the backend, none failed",
    "fail": "some cases failed, crashed, timed out or passed unexpectedly (xpass)",
    "none": "not in the backend's report",
}
#: Counts a cell shows, with their short labels.
_SHOWN = ((PASSED, "passed"), ("failed", "failed"), ("crashed", "crashed"), ("timed out", "timed out"),
          (UNSUPPORTED, "unsupported"), (IMPL_DEFINED, "impl-defined"), ("xfail", "xfail"), (XPASS, "xpass"),
          ("skipped", "skipped"))


def load_reports(reports_dir: Path, backends: Iterable[str] = BACKENDS) -> dict[str, dict[str, Any]]:
    """The committed report of each backend that has one (``reports/<backend>/report.json``), validated."""
    return {b: load_report(str(reports_dir / b / REPORT_NAME)) for b in backends
            if (reports_dir / b / REPORT_NAME).is_file()}


def cell_class(summary: dict[str, Any] | None) -> str:
    """The colour class of one op's summary (``report["ops"][op]``) in one backend's report."""
    if not summary or not summary["cases"]:
        return "none"
    counts = summary["counts"]
    if any(counts.get(s) for s in (*FAILURES, XPASS)):
        return "fail"
    if counts.get(UNSUPPORTED):
        return "unsupported"
    return "impl" if counts.get(IMPL_DEFINED) else "pass"


def cell_text(summary: dict[str, Any] | None) -> str:
    """``"12 passed, 1 failed"``: the nonzero counts, or ``"not run"``."""
    if not summary or not summary["cases"]:
        return "not run"
    counts = summary["counts"]
    return ", ".join(f"{counts[s]} {label}" for s, label in _SHOWN if counts.get(s))


def _cell(summary: dict[str, Any] | None) -> str:
    return f'<span class="sm-cell sm-{cell_class(summary)}">{md_text(cell_text(summary))}</span>'


def _cell_sample(kind: str) -> str:
    return f'<span class="sm-cell sm-{kind}">{"not run" if kind == "none" else kind}</span>'


def _backend_rows(reports: dict[str, dict[str, Any]], scoreboards: dict[str, str]) -> list[str]:
    lines = ["| backend | run | cases | full report |", "|---|---|---|---|"]
    for name, report in reports.items():
        ops = report["options"]["ops"]
        scope = "every op" if ops is None else f"{len(ops)} ops"
        link = f"[scoreboard]({scoreboards[name]})" if name in scoreboards else ""
        lines.append(f"| **{md_text(name)}** | {md_text(headline(report))}; {scope} | {md_text(totals_line(report))} "
                     f"| {link} |")
    return lines


def render_page(all_specs: dict[str, OpSpec], reports: dict[str, dict[str, Any]], *, op_link: str = "ops/{op}.md",
                scoreboards: dict[str, str] | None = None) -> str:
    """The support-matrix page (Markdown with inline HTML cells): the colours, one table per op category with a
    row per op and a column per backend, then what each backend's report ran."""
    scoreboards = scoreboards or {}
    lines = ["# Support matrix", "",
             "Conformance of each backend, op by op, from the committed JSON reports "
             "(`reports/<backend>/report.json`, written by `python -m conformance run --backend NAME --report "
             "FILE`; see [the report schema](report_schema.md)). A cell counts the op's cases by status.", ""]
    if not reports:
        return "\n".join(lines + ["No report is committed under `reports/`.", ""])
    lines += ["Colours: " + " ".join(f'{_cell_sample(k)} {text}.' for k, text in LEGEND.items()), ""]
    extra = sorted({op for r in reports.values() for op in r["ops"]} - set(all_specs))
    names, shown = list(reports), [md_text(name) for name in reports]
    for category, ops in by_category(all_specs).items():
        lines += [f"## {category}", "", "| op | " + " | ".join(shown) + " |", "|---|" + "---|" * len(names)]
        for op in (s.name for s in ops):
            cells = " | ".join(_cell(reports[b]["ops"].get(op)) for b in names)
            lines.append(f"| [{op}]({op_link.format(op=op)}) | {cells} |")
        lines.append("")
    if extra:
        lines += ["## Ops without a spec", "", "| op | " + " | ".join(shown) + " |", "|---|" + "---|" * len(names)]
        lines += [f"| <code>{md_text(op)}</code> | " + " | ".join(_cell(reports[b]["ops"].get(op)) for b in names) + " |"
                  for op in extra]
        lines.append("")
    lines += ["## Backends", "", "What each report ran (a report of some ops leaves the others *not run*; how they were "
              "produced: `reports/README.md`).", "",
              *_backend_rows(reports, scoreboards), ""]
    missing = [b for b in BACKENDS if b not in reports]
    if missing:
        lines += [f"No report committed for: {', '.join(missing)}.", ""]
    return "\n".join(lines)


def op_line(op: str, reports: dict[str, dict[str, Any]], *, matrix_link: str = "../support.md") -> str:
    """One op's row of the matrix, as a line for the top of its page."""
    if not reports:
        return f"*Support:* no conformance report is committed ([support matrix]({matrix_link}))."
    cells = " · ".join(f"{md_text(name)} {_cell(report['ops'].get(op))}" for name, report in reports.items())
    return f"*Support* ([matrix]({matrix_link})): {cells}"


#: The stylesheet of the matrix cells (the site's ``extra_css``).
CSS = """\
.sm-cell { display: inline-block; padding: 0.1em 0.5em; border-radius: 0.2em; white-space: nowrap; }
.sm-pass { background: #2e7d32; color: #ffffff; }
.sm-impl { background: #9ccc65; color: #1b1b1b; }
.sm-unsupported { background: #ffb300; color: #1b1b1b; }
.sm-fail { background: #c62828; color: #ffffff; }
.sm-none { background: #e0e0e0; color: #424242; }
.md-typeset table:not([class]):has(.sm-cell) th, .md-typeset table:not([class]):has(.sm-cell) td {
  padding: 0.3em 0.9em; vertical-align: middle; }
"""
