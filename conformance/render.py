"""Renderings of a JSON report (conformance/report.py): a text scoreboard, Markdown, JUnit XML and a
self-contained HTML scoreboard. Each takes the report object only, so a saved report renders the same."""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from typing import Any

from conformance.cases import PROGRAM
from conformance.manifest import SKIPPED, XFAIL, XPASS
from conformance.report import STATUSES
from conformance.runner import CRASHED, FAILED, FAILURES, IMPL_DEFINED, TIMED_OUT, UNSUPPORTED, clean_text

FORMATS = ("text", "md", "junit", "html", "json")
#: The statuses every scoreboard shows; the manifest ones only when some case has them.
_CORE = (STATUSES[:6])


def columns(report: dict[str, Any]) -> tuple[str, ...]:
    return _CORE + tuple(s for s in (XFAIL, XPASS, SKIPPED) if s in report["totals"])


def render(report: dict[str, Any], fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format '{fmt}': expected one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(report, indent=1) + "\n"
    text = {"text": scoreboard_text, "md": markdown, "junit": junit, "html": html_page}[fmt](report)
    return text.encode("utf-8", "replace").decode("utf-8")  # a report read from a file may hold lone surrogates


def headline(report: dict[str, Any]) -> str:
    b, s = report["backend"], report["suite"]
    where = ", ".join(x for x in (b.get("version") and f"version {b['version']}", b.get("platform"),
                                  b.get("device")) if x)
    commit = f" at {s['commit'][:12]}{' (modified)' if s.get('dirty') else ''}" if s.get("commit") else ""
    return (f"backend {b['name']}{f' ({where})' if where else ''}; suite {s['name']} {s.get('version') or '?'}"
            f"{commit}; profile {report['profile']}, seed {report['seed']}; started {report['started']}, "
            f"{report['seconds']:.1f} s")


def totals_line(report: dict[str, Any]) -> str:
    t = report["totals"]
    return f"{sum(t.values())} cases: " + ", ".join(f"{t.get(s, 0)} {s}" for s in columns(report))


def chosen_outcomes(report: dict[str, Any]) -> Counter:
    """How many cases chose each implementation-defined outcome: {(op, id, outcome): cases}."""
    return Counter((c["op"], key, name) for c in report["cases"] for key, chosen in c.get("chosen", {}).items()
                   for name in chosen)


def chosen_outcomes_text(report: dict[str, Any]) -> str:
    chosen = chosen_outcomes(report)
    if not chosen:
        return ""
    lines = ["implementation-defined outcomes chosen (op: id = outcome, cases):"]
    lines += [f"  {op}: {key} = {name}, {n}" for (op, key, name), n in sorted(chosen.items())]
    return "\n".join(lines)


def programs(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's program cases (kind ``program``), in run order."""
    return [c for c in report["cases"] if c["kind"] == PROGRAM]


def localised_text(case: dict[str, Any]) -> str:
    """Where a program case's difference starts: its first op that differs (and its region at fault), or ''."""
    found = case.get("program", {}).get("localised")
    if not found:
        return ""
    text = f"{found['name']} ({found['opcode']})"
    if found.get("region"):
        inner = found.get("region_finding")
        text += f", its region {found['region']} at fault" + (f": {inner['name']} ({inner['opcode']})" if inner else "")
    return text


def program_line(case: dict[str, Any]) -> str:
    """A program's verdict in one line."""
    details = case.get("program", {})
    size = f"{details['instructions']} instructions, " if "instructions" in details else ""
    where = localised_text(case)
    return (f"{case['name']}: {case['status']} ({size}{case['seconds']:.2f} s)"
            + (f"; first op that differs: {where}" if where else ""))


def stale_lines(report: dict[str, Any]) -> list[str]:
    return [f"{kind} {m['path']}:{e['line']}: '{e['pattern']}' matches no case (stale entry)"
            for kind, m in report["manifests"].items() if m for e in m["stale"]]


def scoreboard_text(report: dict[str, Any]) -> str:
    cols = columns(report)
    width = max([len(op) for op in report["ops"]] + [5])
    head = f"{'op':<{width}}  {'cases':>5}  " + "  ".join(f"{s:>{max(6, len(s))}}" for s in cols)

    def row(name: str, counts: dict[str, int]) -> str:
        return (f"{name:<{width}}  {sum(counts.values()):>5}  "
                + "  ".join(f"{counts.get(s, 0):>{max(6, len(s))}}" for s in cols))

    lines = [head, "-" * len(head)] + [row(op, o["counts"]) for op, o in report["ops"].items()]
    lines += ["-" * len(head), row("total", report["totals"])]
    if programs(report):
        lines += ["", "programs:"] + [f"  {program_line(c)}" for c in programs(report)]
    return "\n".join(lines)


#: Characters a report value keeps as they are in Markdown; every other one becomes an HTML character reference.
_MD_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;-+=/@%'()?$")


def md_text(value: Any, *, multiline: bool = False) -> str:
    """``value`` as Markdown text that renders as exactly its characters: no HTML, link, emphasis, code or table
    cell boundary can come from it (each character outside a small safe set is a character reference, except an
    ``_`` inside a word, which Markdown leaves as it is; control characters and lone surrogates are U+FFFD). With
    ``multiline``, line breaks stay line breaks (``<br>``)."""
    def line_text(line: str) -> str:
        out = []
        for i, c in enumerate(line):
            if c in _MD_SAFE or (c == "_" and 0 < i < len(line) - 1 and line[i - 1].isalnum() and line[i - 1].isascii()
                                 and line[i + 1].isalnum() and line[i + 1].isascii()):
                out.append(c)
                continue
            code = ord(c)
            if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000:
                code = 0xFFFD
            out.append(f"&#{code};")
        return "".join(out)

    lines = str(value).split("\n") if multiline else [str(value).replace("\n", " ")]
    return "<br>\n".join(line_text(line) for line in lines)


def md_code(value: Any) -> str:
    """``value`` as inline code: a code span (whose contents Markdown never interprets) when it can hold it, else
    ``<code>`` around :func:`md_text`."""
    text = str(value)
    if text and "`" not in text and "\n" not in text and text.strip() == text and text.isprintable():
        return f"`{text}`"
    return f"<code>{md_text(text)}</code>"


def md_fence(text: Any, language: str = "") -> list[str]:
    """A fenced code block holding ``text``: the fence is longer than any run of backticks in it."""
    text = str(text).encode("utf-8", "replace").decode("utf-8")
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return [fence + language, text, fence]


def markdown(report: dict[str, Any]) -> str:
    cols = columns(report)
    lines = [f"# Conformance: backend {md_code(report['backend']['name'])}, profile {md_code(report['profile'])}", "",
             md_text(headline(report)) + ".", "", md_text(totals_line(report)) + ".", "",
             "| op | cases | " + " | ".join(cols) + " |", "|---" * (len(cols) + 2) + "|"]
    lines += [f"| {md_text(op)} | {o['cases']} | " + " | ".join(str(o["counts"].get(s, 0)) for s in cols) + " |"
              for op, o in report["ops"].items()]
    if programs(report):
        lines += ["", "## Programs", "", "| program | status | instructions | seconds | first op that differs |",
                  "|---|---|---|---|---|"]
        lines += [f"| {md_text(c['name'])} | {md_text(c['status'])} | {c.get('program', {}).get('instructions', '')} | "
                  f"{c['seconds']:.2f} | {md_text(localised_text(c))} |" for c in programs(report)]
    chosen = chosen_outcomes(report)
    if chosen:
        lines += ["", "## Implementation-defined outcomes chosen", "", "| op | id | outcome | cases |",
                  "|---|---|---|---|"] + [f"| {md_text(op)} | {md_text(key)} | {md_text(name)} | {n} |"
                                          for (op, key, name), n in sorted(chosen.items())]
        lines += [""] + [f"- {md_code(c['id'])}: {md_text(c['message'])}" for c in report["cases"]
                         if c["status"] == IMPL_DEFINED]
    xpassed = [c for c in report["cases"] if c["status"] == XPASS]
    if xpassed:
        lines += ["", "## Passed, but listed as xfail (xpass)", ""] + [f"- {md_code(c['id'])}: {md_text(c['reason'])}"
                                                                         for c in xpassed]
    if stale_lines(report):
        lines += ["", "## Stale manifest entries", ""] + [f"- {md_text(line)}" for line in stale_lines(report)]
    failed = [c for c in report["cases"] if c["status"] in FAILURES]
    if failed:
        lines += ["", "## Failures", ""]
        for c in failed:
            lines += [f"### {md_text(c['id'])} ({md_text(c['status'])})", "", md_text(c["message"], multiline=True), "",
                      *md_fence(c.get("reproduction", ""), "python"), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def junit(report: dict[str, Any]) -> str:
    """JUnit XML: one testsuite per op; failed is a failure, crashed and timed out are errors,
    unsupported / impl-defined / xfail / skipped are skipped (with the status in the message)."""
    x = clean_text  # XML cannot hold control characters or lone surrogates: a report read from a file may
    name = x(report["backend"]["name"])
    suites = ET.Element("testsuites", name=f"conformance-{name}-{report['profile']}",
                        tests=str(len(report["cases"])), time=f"{report['seconds']:.3f}")
    by_op: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in report["cases"]:
        by_op[c["op"]].append(c)
    for op, cases in by_op.items():
        n = Counter(c["status"] for c in cases)
        suite = ET.SubElement(suites, "testsuite", name=x(op), tests=str(len(cases)), failures=str(n[FAILED]),
                              errors=str(n[CRASHED] + n[TIMED_OUT]), time=f"{report['ops'][op]['seconds']:.4f}",
                              skipped=str(sum(n[s] for s in (UNSUPPORTED, IMPL_DEFINED, XFAIL, SKIPPED))))
        for c in cases:
            tc = ET.SubElement(suite, "testcase", classname=x(f"{name}.{op}"), name=x(c["id"]),
                               time=f"{c['seconds']:.4f}")
            message = x(c["message"][:500])
            if c["status"] == FAILED:
                ET.SubElement(tc, "failure", message=message).text = x(c.get("reproduction", ""))
            elif c["status"] in (CRASHED, TIMED_OUT):
                ET.SubElement(tc, "error", type=c["status"], message=message).text = x(c.get("reproduction", ""))
            elif c["status"] in (UNSUPPORTED, IMPL_DEFINED, XFAIL, SKIPPED):
                ET.SubElement(tc, "skipped", message=x(f"{c['status']}: {c.get('reason') or message}"[:500]))
            elif c["status"] == XPASS:
                ET.SubElement(tc, "system-out").text = x(f"xpass: listed as xfail ({c['reason']}) but passed")
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


# -- HTML ------------------------------------------------------------------------------------------

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em;margin:0 0 .3em}
.meta{color:#555;margin:.2em 0}
table{border-collapse:collapse;margin-top:.8em;width:100%}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;user-select:none;position:sticky;top:0}
th:first-child,td:first-child,td.detail{text-align:left}
td.zero{color:#bbb}
tr.bad td:first-child{border-left:4px solid #c62828}
tr.ok td:first-child{border-left:4px solid #2e7d32}
tr.other td:first-child{border-left:4px solid #f9a825}
td.passed{color:#2e7d32}td.failed,td.crashed,td.timed-out,td.xpass{color:#c62828;font-weight:bold}
pre{background:#f7f7f7;padding:6px;overflow-x:auto;white-space:pre-wrap;max-height:30em}
details>summary{cursor:pointer}
.controls{margin:.8em 0}.controls input[type=search]{width:20em;padding:3px}
.warn{color:#b45309}
"""

_JS = """
const table=document.getElementById('board'),body=table.tBodies[0];
const filter=document.getElementById('filter'),onlyBad=document.getElementById('only-bad');
function apply(){const q=filter.value.toLowerCase();
 for(const r of body.rows){const show=r.dataset.op.toLowerCase().includes(q)&&(!onlyBad.checked||r.classList.contains('bad'));
  r.style.display=show?'':'none';}}
filter.addEventListener('input',apply);onlyBad.addEventListener('change',apply);
let dir={};
for(const [i,th] of [...table.tHead.rows[0].cells].entries()){th.addEventListener('click',()=>{
 dir[i]=-(dir[i]||-1);const rows=[...body.rows];
 rows.sort((a,b)=>{const x=a.cells[i].dataset.v,y=b.cells[i].dataset.v;
  const c=(i===0)?x.localeCompare(y):(parseFloat(x)-parseFloat(y));return c*dir[i];});
 rows.forEach(r=>body.appendChild(r));});}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _case_details(c: dict[str, Any]) -> str:
    body = f"<pre>{_e(c['message'])}</pre>" if c["message"] else ""
    if c.get("reproduction"):
        body += f"<pre>{_e(c['reproduction'])}</pre>"
    return f"<details class='case'><summary><code>{_e(c['id'])}</code> {_e(c['status'])}</summary>{body}</details>"


def _programs_html(report: dict[str, Any]) -> str:
    """The programs' verdicts: a table, with the localised op's HLO and reproduction for a program that differs."""
    rows = []
    for c in programs(report):
        found = c.get("program", {}).get("localised")
        detail = ""
        if found:
            detail = (f"<details><summary>{_e(localised_text(c))}</summary><pre>{_e(c['message'])}</pre>"
                      f"<pre>{_e(found['hlo'])}</pre><pre>{_e(c.get('reproduction', ''))}</pre></details>")
        elif c["message"]:
            detail = f"<details><summary>why</summary><pre>{_e(c['message'])}</pre></details>"
        status = c["status"]
        rows.append(f"<tr class='{'bad' if status in FAILURES else 'ok' if status == 'passed' else 'other'}'>"
                    f"<td>{_e(c['name'])}</td><td class='{_e(status.replace(' ', '-'))}'>{_e(status)}</td>"
                    f"<td>{c.get('program', {}).get('instructions', '')}</td><td>{c['seconds']:.2f}</td>"
                    f"<td class='detail'>{detail}</td></tr>")
    if not rows:
        return ""
    head = "".join(f"<th>{h}</th>" for h in ("program", "status", "instructions", "seconds", "first op that differs"))
    return (f"<h2>Programs</h2>\n<table id='programs'><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows)
            + "\n</tbody></table>\n")


def html_page(report: dict[str, Any]) -> str:
    cols = columns(report)
    noted = set(FAILURES) | {XPASS}
    by_op: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in report["cases"]:
        if c["status"] in noted:
            by_op[c["op"]].append(c)
    head = "".join(f"<th>{_e(h)}</th>" for h in ("op", "cases", *cols, "seconds", "failures"))
    rows = []
    for op, o in report["ops"].items():
        counts = o["counts"]
        bad = any(counts.get(s) for s in (*FAILURES, XPASS))
        kind = "bad" if bad else "ok" if counts.get("passed", 0) == o["cases"] else "other"
        cells = [f"<td data-v='{_e(op)}'>{_e(op)}</td>", f"<td data-v='{o['cases']}'>{o['cases']}</td>"]
        cells += [f"<td data-v='{counts.get(s, 0)}' class='{_e(s.replace(' ', '-')) if counts.get(s) else 'zero'}'>"
                  f"{counts.get(s, 0)}</td>" for s in cols]
        cells.append(f"<td data-v='{o['seconds']}'>{o['seconds']:.2f}</td>")
        listed = by_op.get(op, [])
        detail = (f"<details><summary>{len(listed)} case{'s' if len(listed) != 1 else ''}</summary>"
                  + "".join(_case_details(c) for c in listed) + "</details>") if listed else ""
        cells.append(f"<td class='detail' data-v='{len(listed)}'>{detail}</td>")
        rows.append(f"<tr class='{kind}' data-op='{_e(op)}'>{''.join(cells)}</tr>")
    warnings = "".join(f"<p class='warn'>{_e(line)}</p>" for line in stale_lines(report))
    warnings += _programs_html(report)
    title = f"Conformance: {report['backend']['name']} ({report['profile']})"
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<style>{_CSS}</style></head><body>\n<h1>{_e(title)}</h1>\n"
            f"<p class='meta'>{_e(headline(report))}</p>\n<p class='meta' id='totals'>{_e(totals_line(report))}</p>\n"
            f"{warnings}<div class='controls'><input type='search' id='filter' placeholder='filter ops'> "
            "<label><input type='checkbox' id='only-bad'> only ops with failures</label> "
            "(click a column header to sort)</div>\n"
            f"<table id='board'><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows)
            + f"\n</tbody></table>\n<script>{_JS}</script>\n</body></html>\n")
