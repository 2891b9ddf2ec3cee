"""Reports: the JSON schema, xfail/skip manifests, the renderings, and ``compare``."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import specs
from conformance import cli
from conformance.compare_reports import diff_reports, diff_text
from conformance.generate import cases_for
from conformance.manifest import Manifest, ManifestError
from conformance.render import render
from conformance.report import SCHEMA_VERSION, backend_info, load_report, schema, validate_report
from conformance.schema_check import validate

XFAILS = """\
# expected failures of the doubling backend
Add/golden/same_shape   doubles every value
Add/error/c1_0          listed by mistake: error cases never reach the backend
Add/golden/nope         no such case
Pad/golden/edges        an op this run does not cover
*/golden/missing        no such case either
"""
SKIPS = "Add/golden/scalar_broadcast/const\tslow on this machine\n"


@pytest.fixture(scope="module")
def run_report(tmp_path_factory):
    """A run of Add's golden and error cases on the doubling backend with both manifests."""
    tmp = tmp_path_factory.mktemp("reports")
    (tmp / "xfails.txt").write_text(XFAILS)
    (tmp / "skips.txt").write_text(SKIPS)
    paths = {fmt: tmp / f"r.{fmt}" for fmt in ("json", "html", "md", "xml")}
    code = cli.main(["run", "--backend", "tests.test_builder:DOUBLER", "--ops", "Add", "--kinds", "golden,error",
                     "--no-isolation", "-q", "--xfails", str(tmp / "xfails.txt"), "--skips", str(tmp / "skips.txt"),
                     "--report", str(paths["json"]), "--html", str(paths["html"]), "--markdown", str(paths["md"]),
                     "--junit", str(paths["xml"])])
    return code, json.loads(paths["json"].read_text()), paths


def test_run_report_follows_the_schema(run_report):
    code, report, _ = run_report
    assert code == 1  # the golden cases not listed as xfail fail
    assert validate_report(report) == []
    assert report["schema_version"] == SCHEMA_VERSION
    assert report["backend"]["name"] == "doubler" and report["profile"] == "spec" and report["seed"] == 0
    assert report["options"]["ops"] == ["Add"] and report["options"]["kinds"] == ["error", "golden"]
    assert report["options"]["isolation"] is False
    assert report["suite"]["name"] == "xla-semantics"
    assert re.fullmatch(r"[0-9a-f]{40}", report["suite"]["commit"] or "")  # the tests run in a git checkout
    cases = {c["id"]: c for c in report["cases"]}
    assert cases["Add/golden/same_shape/param"] | {"seconds": 0, "message": ""} == {
        "id": "Add/golden/same_shape/param", "op": "Add", "kind": "golden", "name": "same_shape",
        "operand_form": "param", "status": "xfail", "outcome": "failed", "reason": "doubles every value",
        "message": "", "seconds": 0, "reproduction": cases["Add/golden/same_shape/param"]["reproduction"]}
    assert cases["Add/error/c1_0"]["status"] == "xpass" and cases["Add/error/c1_0"]["outcome"] == "passed"
    assert "operand_form" not in cases["Add/error/c1_0"] and cases["Add/error/c1_0"]["name"] == "c1_0"
    skipped = cases["Add/golden/scalar_broadcast/const"]
    assert skipped["status"] == "skipped" and skipped["reason"] == "slow on this machine"
    assert cases["Add/golden/scalar_broadcast/param"]["status"] == "failed"
    # totals and the per-op summary count the cases
    assert report["totals"] == {"failed": 17, "passed": 9, "xfail": 2, "xpass": 1, "skipped": 1}
    assert report["ops"]["Add"]["cases"] == len(report["cases"]) == 30
    assert report["ops"]["Add"]["counts"] == report["totals"]


def test_stale_manifest_entries_are_reported(run_report, capsys):
    _, report, _ = run_report
    xfails = report["manifests"]["xfails"]
    assert xfails["entries"] == 5
    # the Pad entry names an op outside the run: not checked; a glob op part is checked
    assert [(e["pattern"], e["line"]) for e in xfails["stale"]] == [("Add/golden/nope", 4), ("*/golden/missing", 6)]
    assert report["manifests"]["skips"]["stale"] == []


def test_stale_warning_on_stderr(tmp_path, capsys):
    (tmp_path / "x.txt").write_text("Add/golden/gone   was removed\n")
    code = cli.main(["run", "--backend", "reference", "--ops", "Add", "--kinds", "error", "--no-isolation", "-q",
                     "--xfails", str(tmp_path / "x.txt")])
    err = capsys.readouterr().err
    assert code == 0
    assert f"{tmp_path / 'x.txt'}:1: 'Add/golden/gone' matches no case (stale entry)" in err


def test_manifest_format():
    m = Manifest.parse("# comment\n\nPad  padding is off\n*/generated/f64 no f64\nSort/golden/stable/param  a b\n")
    assert [(e.pattern, e.reason, e.line) for e in m.entries] == [
        ("Pad", "padding is off", 3), ("*/generated/f64", "no f64", 4), ("Sort/golden/stable/param", "a b", 5)]
    assert m.match("Pad/golden/edges/const").reason == "padding is off"
    assert m.match("PadX/golden/edges/const") is None  # a prefix ends at a '/'
    assert m.match("Abs/generated/f64/f64[5]/param").pattern == "*/generated/f64"
    assert m.match("Abs/generated/f32/f32[5]/param") is None
    assert m.match("Sort/golden/stable/const") is None
    assert [e.pattern for e in m.stale(["Pad", "Sort", "Abs"])] == ["Sort/golden/stable/param"]
    assert m.stale(["Pad"]) == []  # the Sort entry is outside the ops; the glob one matched


def test_manifest_entry_without_reason():
    with pytest.raises(ManifestError, match=r"x\.txt:2: 'Pad/golden' has no reason"):
        Manifest.parse("Add  ok\nPad/golden\n", "x.txt")


def test_run_refuses_a_bad_manifest(tmp_path, capsys):
    (tmp_path / "s.txt").write_text("Add\n")
    assert cli.main(["run", "--backend", "reference", "--ops", "Add", "--skips", str(tmp_path / "s.txt")]) == 2
    assert "has no reason" in capsys.readouterr().err


# -- the schema and its validator ----------------------------------------------------------------------

def test_validator_names_each_violation(run_report):
    report = copy.deepcopy(run_report[1])
    del report["seed"]
    report["profile"] = "fast"
    report["cases"][0]["status"] = "ok"
    report["cases"][1]["seconds"] = -1
    report["cases"][2]["extra"] = 1
    report["backend"]["version"] = 3
    report["totals"]["passed"] = 0
    assert sorted(validate_report(report)) == sorted([
        "$: missing required key 'seed'",
        "$.profile: 'fast' is not one of ['spec', 'xla']",
        "$.cases[0].status: 'ok' is not one of ['passed', 'failed', 'crashed', 'timed out', 'unsupported', "
        "'impl-defined', 'xfail', 'xpass', 'skipped']",
        "$.cases[1].seconds: -1 is below the minimum 0",
        "$.cases[2]: unexpected key 'extra'",
        "$.backend.version: expected string or null, got int 3",
        "$.totals.passed: 0 is below the minimum 1"])


def test_validator_subset():
    assert validate(True, {"type": "integer"}) == ["$: expected integer, got bool True"]
    assert validate("1.x", {"pattern": r"^1\.[0-9]+$"}) == ["$: '1.x' does not match '^1\\\\.[0-9]+$'"]
    assert validate({"a": [1, "b"]}, {"properties": {"a": {"items": {"$ref": "#/$defs/n"}}},
                                      "$defs": {"n": {"type": "number"}}}) == ["$.a[1]: expected number, got str 'b'"]
    with pytest.raises(ValueError, match="oneOf"):
        validate(1, {"oneOf": [{"type": "integer"}]})  # a keyword it does not check is an error, never ignored


def test_schema_uses_only_checked_keywords():
    checked = {"type", "properties", "required", "additionalProperties", "items", "enum", "minimum", "pattern",
               "$ref", "title", "description", "$schema", "$id", "$defs"}

    def keywords(node: dict) -> set:
        found = set(node)
        for key in ("properties", "$defs"):
            for sub in node.get(key, {}).values():
                found |= keywords(sub)
        for key in ("items", "additionalProperties"):
            if isinstance(node.get(key), dict):
                found |= keywords(node[key])
        return found

    assert keywords(schema()) <= checked


# -- renderings ----------------------------------------------------------------------------------------

def test_html_scoreboard(run_report):
    _, report, paths = run_report
    page = paths["html"].read_text()
    assert page == render(report, "html")  # run --html and `report --format html` agree
    assert page.startswith("<!DOCTYPE html>") and "<script>" in page and "<style>" in page
    assert not re.search(r"""(src|href)\s*=|<link|@import|url\(""", page)  # no external assets
    row = re.search(r"<tr class='bad' data-op='Add'>(.*?)</tr>", page, re.S).group(1)
    counts = re.findall(r"<td data-v='(\d+)'[^>]*>(\d+)</td>", row)
    # cases, passed, failed, crashed, timed out, unsupported, impl-defined, xfail, xpass, skipped
    assert [int(v) for v, _ in counts] == [30, 9, 17, 0, 0, 0, 0, 2, 1, 1]
    assert "18 cases</summary>" in row  # the 17 failures and the xpass, expandable
    assert "<code>Add/golden/complex/param</code> failed" in row
    assert "id='filter'" in page and "only-bad" in page and "addEventListener('click'" in page


_FAKE_DOM = """
function cell(v){return {dataset:{v:String(v)}}}
function row(op,n,bad){return {dataset:{op},cells:[cell(op),cell(n)],classList:{contains:c=>c==='bad'&&bad},style:{}}}
let rows=[row('Pad',5,false),row('Add',9,true),row('Rev',1,false)];
const body={get rows(){return rows},appendChild(r){rows=rows.filter(x=>x!==r);rows.push(r)}};
const on={};const th=i=>({addEventListener:(e,f)=>on['th'+i]=f});
const table={tBodies:[body],tHead:{rows:[{cells:[th(0),th(1)]}]}};
const filter={value:'',addEventListener:(e,f)=>on.filter=f},only={checked:false,addEventListener:(e,f)=>on.only=f};
globalThis.document={getElementById:id=>({board:table,filter,'only-bad':only})[id]};
const show=()=>rows.map(r=>r.dataset.op+(r.style.display==='none'?'-':'')).join();
const out=[];
{
SCRIPT
}
on.th0();out.push(show());on.th1();out.push(show());on.th1();out.push(show());
filter.value='a';on.filter();out.push(show());filter.value='';only.checked=true;on.only();out.push(show());
console.log(out.join(' '));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's script")
def test_html_script_sorts_and_filters(run_report):
    """The page's inline script, run by node against a minimal stand-in for the DOM."""
    script = re.search(r"<script>(.*)</script>", render(run_report[1], "html"), re.S).group(1)
    proc = subprocess.run(["node", "-e", _FAKE_DOM.replace("SCRIPT", script)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    # by name, by count up, by count down, ops containing 'a', only ops with failures
    assert proc.stdout.split() == ["Add,Pad,Rev", "Rev,Pad,Add", "Add,Pad,Rev", "Add,Pad,Rev-", "Add,Pad-,Rev-"]


def test_html_escapes_messages(run_report):
    report = copy.deepcopy(run_report[1])
    report["cases"][0].update(status="failed", message="<script>alert(1)</script>", reproduction="a < b & c")
    report["totals"], report["ops"] = {"failed": 1}, {"Add": {"cases": 1, "seconds": 0.0, "counts": {"failed": 1}}}
    report["cases"] = report["cases"][:1]
    page = render(report, "html")
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a &lt; b &amp; c" in page


def test_junit_and_markdown(run_report):
    _, report, paths = run_report
    root = ET.parse(paths["xml"]).getroot()
    suite = root.find("testsuite")
    assert suite.get("name") == "Add" and suite.get("tests") == "30"
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("17", "0", "3")
    same = suite.find("testcase[@name='Add/golden/same_shape/param']/skipped")
    assert same.get("message") == "xfail: doubles every value"
    md = paths["md"].read_text()
    assert "| Add | 30 | 9 | 17 | 0 | 0 | 0 | 0 | 2 | 1 | 1 |" in md
    assert "- `Add/error/c1_0`: listed by mistake" in md and "'Add/golden/nope' matches no case" in md
    assert "### Add/golden/complex/param (failed)" in md


def test_report_command(run_report, tmp_path, capsys):
    _, report, paths = run_report
    out = tmp_path / "r.md"
    assert cli.main(["report", str(paths["json"]), "--format", "md", "-o", str(out)]) == 0
    assert out.read_text() == paths["md"].read_text()
    assert cli.main(["report", str(paths["json"])]) == 0
    assert "total     30       9      17" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**report, "schema_version": "2.0"}))
    assert cli.main(["report", str(bad), "--format", "html"]) == 2
    assert "$.schema_version: '2.0' does not match" in capsys.readouterr().err


def test_backend_info_from_the_backends_declaration():
    class Declares:
        name = "mine"

        def info(self):
            return {"version": "1.2", "platform": "npu", "device": "Z1", "cores": 8, "extra": ["x"]}

    class Broken:
        name = "broken"
        info = property(lambda self: (_ for _ in ()).throw(RuntimeError("no")))

    class Dict:
        name = "dict"
        info = {"platform": "cpu"}

    assert backend_info(Declares()) == {"name": "mine", "version": "1.2", "platform": "npu", "device": "Z1",
                                        "details": {"cores": 8, "extra": "['x']"}}
    assert backend_info(Dict()) == {"name": "dict", "version": None, "platform": "cpu", "device": None}
    with pytest.raises(RuntimeError):  # a property that raises is the backend's bug, seen as such
        backend_info(Broken())

    class Raises:
        name = "raises"

        def info(self):
            raise OSError("driver")

    assert backend_info(Raises())["details"] == {"info_error": "OSError: driver"}


# -- compare ---------------------------------------------------------------------------------------------

def _report(cases: list[tuple[str, str]], **extra) -> dict:
    """A minimal valid report holding ``(id, status)`` cases (``status`` may be ``xfail:failed``)."""
    records = []
    for case_id, status in cases:
        op, kind, name = case_id.split("/", 2)
        status, _, outcome = status.partition(":")
        records.append({"id": case_id, "op": op, "kind": kind, "name": name, "status": status,
                        **({"outcome": outcome, "reason": "known"} if outcome else {}),
                        "message": "wrong value" if status == "failed" else "", "seconds": 0.01})
    from conformance.report import summarize

    totals, ops = summarize(records)
    report = {"schema_version": "1.0", "suite": {"name": "xla-semantics", "version": "0.1.0", "commit": None,
                                                 "dirty": None},
              "backend": {"name": "jax", "version": "0.10.2", "platform": "cpu", "device": "cpu"},
              "profile": "spec", "seed": 0, "options": {}, "started": "2026-01-01T00:00:00+00:00", "seconds": 1.0,
              "environment": {"python": "3.11", "host": "linux"}, "manifests": {"xfails": None, "skips": None},
              "totals": totals, "ops": ops, "cases": records}
    report.update(extra)
    assert validate_report(report) == []
    return report


OLD = _report([("Add/golden/a", "passed"), ("Add/golden/b", "failed"), ("Pad/golden/c", "passed"),
               ("Pad/golden/d", "xfail:failed"), ("Pad/golden/e", "passed"), ("Rev/error/f", "passed")])
NEW = _report([("Add/golden/a", "crashed"), ("Add/golden/b", "passed"), ("Pad/golden/c", "unsupported"),
               ("Pad/golden/d", "failed"), ("Pad/golden/e", "passed"), ("Sort/golden/g", "failed")])


def test_compare_finds_regressions_and_fixes():
    d = diff_reports(OLD, NEW)
    assert [(c.id, c.old, c.new) for c in d.regressed] == [("Add/golden/a", "passed", "crashed")]
    assert [(c.id, c.old, c.new) for c in d.fixed] == [("Add/golden/b", "failed", "passed")]
    # an xfail that fails without the manifest is no change; passed -> unsupported is listed apart
    assert [(c.id, c.old, c.new) for c in d.changed] == [("Pad/golden/c", "passed", "unsupported")]
    assert [c["id"] for c in d.added] == ["Sort/golden/g"] and [c["id"] for c in d.removed] == ["Rev/error/f"]
    assert d.ops == {"Add": {"regressed": 1, "fixed": 1}, "Pad": {"changed": 1}, "Rev": {"removed": 1},
                     "Sort": {"added": 1}}
    md = diff_text(d, markdown=True)
    assert "1 regressed, 1 fixed, 1 other status changes, 1 new cases, 1 removed cases." in md
    assert "## Regressed (1)\n\n- `Add/golden/a`: passed -> crashed" in md
    assert "| Add | 1 | 1 | 0 | 0 | 0 |" in md
    assert diff_reports(NEW, NEW).regressed == []


def test_compare_command_exit_status(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(OLD))
    new.write_text(json.dumps(NEW))
    assert cli.main(["compare", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "Regressed (1):\n\n- Add/golden/a: passed -> crashed" in out and "Fixed (1):" in out
    assert cli.main(["compare", str(new), str(old), "--format", "md", "-o", str(tmp_path / "d.md")]) == 1
    assert "- `Pad/golden/d`: failed -> passed" not in (tmp_path / "d.md").read_text()  # xfail's own status
    assert cli.main(["compare", str(old), str(old)]) == 0
    (tmp_path / "other.json").write_text(json.dumps({**NEW, "profile": "xla"}))
    cli.main(["compare", str(old), str(tmp_path / "other.json")])
    assert "note: the reports differ in profile: spec vs xla" in capsys.readouterr().out
    (tmp_path / "junk.json").write_text("{}")
    assert cli.main(["compare", str(old), str(tmp_path / "junk.json")]) == 2
    assert "missing required key 'schema_version'" in capsys.readouterr().err


def test_load_report_roundtrip(run_report):
    assert load_report(str(run_report[2]["json"])) == run_report[1]


# -- reproductions run as printed ----------------------------------------------------------------------
def _reproduction_cases() -> list:
    """Per op, its first golden case and every generated case whose attributes describe a sub-computation (a
    reducer, a comparator, a body): those the reproduction must build, not print as a dict."""
    from conformance.build import _is_description
    picked = []
    for name, spec in specs.load_all().items():
        cases = [c for c in cases_for(spec) if c.kind != "error" and c.device_count == 1 and not c.infeed
                 and c.outfeed is None and not c.id.endswith("/const")]
        golden = [c for c in cases if c.kind == "golden"][:1]
        described = [c for c in cases if any(_is_description(name, k, v) for k, v in c.attrs.items())][:1]
        picked += {c.id: c for c in golden + described}.values()
    return picked


@pytest.mark.parametrize("case", _reproduction_cases(), ids=lambda c: c.id)
def test_a_reproduction_runs_and_gives_the_expected_value(case) -> None:
    from backend import get_backend
    from conformance.build import reproduction
    from conformance.runner import _build, tuple_leaves
    from conformance.tolerance import mismatch_mask

    printed: list = []
    exec(reproduction(case, "reference"), {"print": lambda *a: printed.append(a)})
    (outputs,) = printed[0]
    _, comp, args, _ = _build(case)  # what the suite itself runs
    want = get_backend("reference").execute(comp, args)
    got = [leaf for out in outputs for leaf in tuple_leaves(out)]
    want = [leaf for out in want for leaf in tuple_leaves(out)]
    assert len(got) == len(want)
    for g, w in zip(got, want):  # bit for bit: the reproduction rebuilt the same computation and values
        assert g.dtype == w.dtype and not np.asarray(mismatch_mask(g, w, None)).any(), (g, w)


@pytest.mark.parametrize("target", ["iree", "iree-vmvx"])
def test_every_op_failing_on_iree_is_explained_in_the_doc(target: str) -> None:
    """The committed IREE reports' failures (llvm-cpu and vmvx) are explained in docs/iree_differences.md: each op
    with a failed, crashed or timed-out case is named there (its class says what IREE does differently)."""
    root = Path(__file__).resolve().parent.parent
    report = json.loads((root / "reports" / target / "report.json").read_text())
    doc = (root / "docs" / "iree_differences.md").read_text()
    failing = {c["op"] for c in report["cases"] if c["status"] in ("failed", "crashed", "timed out")}
    assert failing and not {op for op in failing if not re.search(rf"\b{op}\b", doc)}


def test_markdown_shows_report_values_as_text(run_report):
    """Messages, ids and the backend's version are data: no HTML, link or fence break-out in the Markdown."""
    import html as html_module

    import markdown as markdown_module
    _, report, _ = run_report
    report = copy.deepcopy(report)
    report["backend"]["version"] = "<script>alert(1)</script>"
    failed = next(c for c in report["cases"] if c["status"] == "failed")
    failed["message"] = "boom <img src=x onerror=alert(2)>\n[x](javascript:alert(3)) | *y*"
    failed["reproduction"] = "```\n<script>alert(4)</script>\n```"
    md = render(report, "md")
    rendered = markdown_module.markdown(md, extensions=["tables", "fenced_code"])
    assert "<script" not in rendered and "<img" not in rendered and 'href="javascript' not in rendered
    text = html_module.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert "<script>alert(1)</script>" in text and "boom <img src=x onerror=alert(2)>" in text
    assert "<script>alert(4)</script>" in text
    assert "| Add | 30 | 9 | 17 | 0 | 0 | 0 | 0 | 2 | 1 | 1 |" in md  # plain values read as they are


def test_a_manifest_that_is_not_utf8_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "xfails.txt"
    path.write_bytes(b"Add/golden/a  fine\nAdd/golden/b  caf\xe9 latin-1\n")
    with pytest.raises(ManifestError, match=r"xfails.txt:2: not UTF-8 text \(byte 0xe9\)"):
        Manifest.read(str(path))
    assert cli.main(["run", "--ops", "Add", "--backend", "reference", "--no-isolation", "--xfails", str(path)]) == 2
    err = capsys.readouterr().err
    assert "xfails.txt:2: not UTF-8" in err and "Traceback" not in err


def test_a_manifest_line_that_is_huge_or_holds_control_characters_is_a_clear_error():
    with pytest.raises(ManifestError, match=r"m:2: a line of 5008 characters \(at most 4096\)"):
        Manifest.parse("Add  ok\n" + "A" * 5000 + "  reason\n", "m")
    with pytest.raises(ManifestError, match=r"m:1: control characters"):
        Manifest.parse("Add\x1b[2J  reason\n", "m")
    assert Manifest.parse("Add\treason\twith a tab\n", "m").entries[0].reason == "reason\twith a tab"


def _naive_match(manifest, case_id):
    found = [e for e in manifest.entries if e.matches(case_id)]
    return found[0] if found else None, set(found)


def test_indexed_manifest_matching_is_the_plain_scan():
    text = "\n".join(["Add  all of Add", "Add/golden/x  one", "*/golden/x  any op's x", "Add/gol*  glob of Add",
                      "Neg/golden/x/param  exact", "[AN]*/error  sets", "Pad/golden  other op", "Add/golden/x  again",
                      "A?d/golden/y  one char", "Add/golden/x/param  deepest"])
    ids = ["Add/golden/x/param", "Add/golden/y/const", "Neg/golden/x/param", "Neg/error/c1_0", "Pad/golden/z",
           "Add/error/c2", "Addx/golden/x", "Sub/golden/x/param", "Add"]
    for case_id in ids:
        manifest, naive = Manifest.parse(text, "m"), Manifest.parse(text, "m")
        first, used = _naive_match(naive, case_id)
        assert manifest.match(case_id) == first, case_id
        assert manifest.used == used, case_id


def test_a_manifest_of_20000_entries_matches_every_case_quickly():
    import time
    ids = [f"Op{i % 190}/generated/case{i}/param" for i in range(20000)]
    lines = [f"{case_id}  listed {i}" for i, case_id in enumerate(ids[:19800])]
    lines += [f"Op{i}/generated/*{i}/const  glob {i}" for i in range(190)] + [f"*/golden/never{i}  wild" for i in range(10)]
    start = time.perf_counter()
    manifest = Manifest.parse("\n".join(lines), "big")
    matched = sum(manifest.match(case_id) is not None for case_id in ids)
    manifest.note_cases(ids)
    stale = manifest.stale([f"Op{i}" for i in range(190)])
    seconds = time.perf_counter() - start
    assert len(manifest.entries) == 20000 and matched == 19800
    assert len(stale) == 200  # the globs (no /const id) and the wild entries match nothing
    assert seconds < 2.0, f"{seconds:.1f} s for a 20,000-entry manifest"


def test_a_manifest_includes_the_departures_several_backends_share(tmp_path):
    """`%include FILE` (relative to the including manifest) adds FILE's entries, each remembering its file: jax.txt
    includes xla_algorithms.txt, the departures of XLA's algorithms every backend compiled from jax's lowering shares;
    an include cycle, an unknown directive and a missing file are clear errors."""
    from conformance.manifest import Manifest, ManifestError

    jax = Manifest.read("conformance/known_failures/jax.txt")
    shared = [e for e in jax.entries if e.file.endswith("xla_algorithms.txt")]
    assert {e.pattern for e in shared} == {"RandomGammaGrad/golden/far_below_the_mode/param",
                                          "RandomGammaGrad/golden/far_below_the_mode/const",
                                          # jax's series of the Igamma family in the 8-bit types (issue 23)
                                          "Igamma/golden/f8e4m3fn/*", "Igammac/golden/f8e4m3fnuz/*",
                                          "IgammaGradA/golden/f8e3m4/*", "RandomGammaGrad/golden/f8e4m3b11fnuz/*"}
    assert jax.match("RandomGammaGrad/golden/far_below_the_mode/param") is not None
    assert jax.match("Igamma/golden/f8e4m3fn/const").file.endswith("xla_algorithms.txt")
    assert jax.match("Sign/generated/f16/f16?1,2,2,3?/const") is not None  # jax's own entries stay
    (tmp_path / "shared.txt").write_text("Neg/golden/x  shared reason\n")
    (tmp_path / "own.txt").write_text("Abs/golden/y  own reason\n%include shared.txt\n")
    own = Manifest.read(str(tmp_path / "own.txt"))
    assert [(e.pattern, e.file.endswith("shared.txt"), e.line) for e in own.entries] == \
        [("Abs/golden/y", False, 1), ("Neg/golden/x", True, 1)]
    stale = own.warnings("xfail", ["Abs", "Neg"])
    assert any("shared.txt:1: 'Neg/golden/x'" in w for w in stale) and any("own.txt:1" in w for w in stale)
    (tmp_path / "a.txt").write_text("%include b.txt\n")
    (tmp_path / "b.txt").write_text("%include a.txt\n")
    with pytest.raises(ManifestError, match="includes itself"):
        Manifest.read(str(tmp_path / "a.txt"))
    (tmp_path / "c.txt").write_text("%import d.txt\n")
    with pytest.raises(ManifestError, match=r"c.txt:1: '%import d.txt' is not a directive"):
        Manifest.read(str(tmp_path / "c.txt"))
    (tmp_path / "e.txt").write_text("%include missing.txt\n")
    with pytest.raises(ManifestError, match="missing.txt: cannot read the manifest"):
        Manifest.read(str(tmp_path / "e.txt"))
