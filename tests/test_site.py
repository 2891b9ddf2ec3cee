"""The docs site: the support matrix's cells and page, link handling, the strict mkdocs build (slow: run by .ci/run
as its own step with the docs extra), the built pages in headless Chromium, and the committed screenshots."""

from __future__ import annotations

import importlib.util
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import specs
from docgen import browser, site, support_matrix
from docgen.png import read_png

SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
HAS_MKDOCS = importlib.util.find_spec("mkdocs") is not None and importlib.util.find_spec("material") is not None
needs_mkdocs = pytest.mark.skipif(not HAS_MKDOCS, reason="mkdocs-material not installed (pip install -e '.[docs]')")
needs_chromium = pytest.mark.skipif(browser.find_chromium() is None,
                                    reason="no Chromium on PATH (Debian: apt-get install -y chromium)")

# Colours of the committed screenshots, as rendered: material's indigo header, the matrix's cell colours (CSS).
HEADER = (0x40, 0x51, 0xB5)
PASS = (0x2E, 0x7D, 0x32)
FAIL = (0xC6, 0x28, 0x28)


def summary(**counts: int) -> dict[str, Any]:
    counts = {k.replace("_", " ") if k == "timed_out" else k.replace("_", "-"): v for k, v in counts.items()}
    return {"cases": sum(counts.values()), "seconds": 1.0, "counts": counts}


def fake_report(backend: str, ops: dict[str, dict[str, Any]]) -> dict[str, Any]:
    totals: dict[str, int] = {}
    for o in ops.values():
        for k, v in o["counts"].items():
            totals[k] = totals.get(k, 0) + v
    return {"backend": {"name": backend, "version": "1.0", "platform": "cpu", "device": "cpu"},
            "suite": {"name": "xla-semantics", "version": "0.1.0", "commit": "0123456789abcdef", "dirty": False},
            "profile": "spec", "seed": 0, "started": "2026-11-23T03:00:00+00:00", "seconds": 5.0,
            "options": {"ops": sorted(ops)}, "totals": totals, "ops": ops, "cases": []}


def test_cell_colour_is_the_worst_status_and_text_counts_each():
    assert support_matrix.cell_class(summary(passed=5)) == "pass"
    assert support_matrix.cell_class(summary(passed=5, impl_defined=2)) == "impl"
    assert support_matrix.cell_class(summary(passed=5, impl_defined=2, unsupported=1)) == "unsupported"
    assert support_matrix.cell_class(summary(passed=5, unsupported=1, failed=1)) == "fail"
    assert support_matrix.cell_class(summary(passed=5, crashed=1)) == "fail"
    assert support_matrix.cell_class(summary(passed=5, timed_out=1)) == "fail"
    assert support_matrix.cell_class(summary(passed=5, xpass=1)) == "fail"
    assert support_matrix.cell_class(summary(passed=5, xfail=1)) == "pass"
    assert support_matrix.cell_class(None) == "none"
    assert support_matrix.cell_text(summary(passed=5, impl_defined=2, failed=1)) == \
        "5 passed, 1 failed, 2 impl-defined"
    assert support_matrix.cell_text(None) == "not run"


def test_matrix_page_has_a_row_per_op_and_a_column_per_backend():
    reports = {"reference": fake_report("reference", {"Pad": summary(passed=3), "Add": summary(passed=4)}),
               "jax": fake_report("jax", {"Pad": summary(passed=2, failed=1)})}
    page = support_matrix.render_page(specs.load_all(), reports, scoreboards={"jax": "reports/jax.html"})
    assert "| op | reference | jax |" in page
    assert ('| [Pad](ops/Pad.md) | <span class="sm-cell sm-pass">3 passed</span> | '
            '<span class="sm-cell sm-fail">2 passed, 1 failed</span> |') in page
    assert '| [Add](ops/Add.md) | <span class="sm-cell sm-pass">4 passed</span> | ' \
           '<span class="sm-cell sm-none">not run</span> |' in page
    assert "[scoreboard](reports/jax.html)" in page
    assert "No report committed for: pallas, iree." in page
    rows = re.findall(r"^\| \[(\w+)\]\(ops/", page, re.M)
    assert sorted(rows) == sorted(specs.load_all())  # every op, once
    line = support_matrix.op_line("Pad", reports)
    assert line == ('*Support* ([matrix](../support.md)): reference <span class="sm-cell sm-pass">3 passed</span> · '
                    'jax <span class="sm-cell sm-fail">2 passed, 1 failed</span>')


_XSS = {"version": "<script>alert(1)</script>", "platform": "[click](javascript:alert(2))",
        "device": "<img src=x onerror=alert(3)> | `x` *y*"}


def _live_html(page: str) -> str:
    """The HTML Python-Markdown (mkdocs' renderer, with the site's table extension) makes of ``page``."""
    import markdown
    return markdown.markdown(page, extensions=["tables", "attr_list"])


def test_report_values_cannot_put_html_into_the_support_matrix():
    """A report is data: its backend version, platform, device and op names show as text, never as markup."""
    report = fake_report("jax", {"Pad": summary(passed=2), "<script>alert(4)</script>": summary(failed=1)})
    report["backend"].update(_XSS)
    reports = {"jax": report}
    page = support_matrix.render_page(specs.load_all(), reports, scoreboards={"jax": "reports/jax.html"})
    for text in (page, _live_html(page)):
        assert "<script" not in text and "<img" not in text and "javascript:alert(2)\">" not in text
    rendered = _live_html(page)
    assert 'href="javascript' not in rendered and "<em>y</em>" not in rendered
    # the values are shown as their characters
    import html as html_module
    shown = html_module.unescape(re.sub(r"<[^>]+>", "", rendered))
    for value in (*_XSS.values(), "<script>alert(4)</script>"):
        assert value in shown
    # the row of the backend still has its four cells (a | in a value does not split it)
    row = next(line for line in page.splitlines() if line.startswith("| **jax**"))
    assert row.count(" | ") == 3
    line = support_matrix.op_line("Pad", {"<b>x</b>": report})
    assert "<b>" not in line and "&#60;b&#62;x" in line


def test_links_to_repository_files_are_copied_or_unlinked():
    copied = {"conformance/report_schema.json": "report_schema.json", "docs/report_schema.md": "report_schema.md"}
    text = ("See [the schema](../conformance/report_schema.json), [statuses](report_schema.md#statuses), "
            "[SCHEMA](../specs/SCHEMA.md), [web](https://x.org), [here](#top).")
    assert site.repoint_links(text, copied, base="docs") == (
        "See [the schema](report_schema.json), [statuses](report_schema.md#statuses), "
        "SCHEMA (`specs/SCHEMA.md` in the repository), [web](https://x.org), [here](#top).")
    assert site.repoint_links("[s](docs/report_schema.md)", copied) == "[s](report_schema.md)"  # from the README


class _Tables(HTMLParser):
    """Rows of every table of a page: lists of cell texts, with each cell's span classes."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str]]] = []
        self._cell: list[str] | None = None
        self._classes = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._classes = [], ""
        elif tag == "span" and self._cell is not None:
            self._classes += dict(attrs).get("class") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(("".join(self._cell).strip(), self._classes))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def table_rows(html: str) -> list[list[tuple[str, str]]]:
    parser = _Tables()
    parser.feed(html)
    return parser.rows


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return site.build(tmp_path_factory.mktemp("site") / "site")


@pytest.mark.slow
@needs_mkdocs
def test_site_builds_strict_with_every_page(built_site: Path):
    all_specs = specs.load_all()
    for name in all_specs:
        assert (built_site / "ops" / f"{name}.html").is_file(), name
    for page in ("index.html", "support.html", "porting.html", "conformance.html", "report_schema.html",
                 "report_schema.json", "search/search_index.json"):
        assert (built_site / page).is_file(), page
    matrix = table_rows((built_site / "support.html").read_text())
    reports = support_matrix.load_reports(site.DEFAULT_REPORTS)
    header = [text for text, _ in matrix[0]]
    assert header == ["op", *reports]
    op_rows = {row[0][0]: row[1:] for row in matrix if row and row[0][0] in all_specs}
    assert set(op_rows) == set(all_specs)
    for backend, report in reports.items():  # every op's cell shows that backend's counts, in its colour
        column = list(reports).index(backend)
        for op in all_specs:
            text, classes = op_rows[op][column]
            want = report["ops"].get(op)
            assert text == support_matrix.cell_text(want), (backend, op)
            assert f"sm-{support_matrix.cell_class(want)}" in classes, (backend, op)
    pad = (built_site / "ops" / "Pad.html").read_text()
    assert "interior_and_negative_edges" in pad and "sm-cell" in pad and 'href="../support.html"' in pad
    assert 'href="https://openxla.org/xla/operation_semantics#pad"' in pad
    for op in ("Pad", "ConvGeneralDilated", "ReduceWindow", "Gather", "Scatter"):  # each figure, on its page
        assert f'src="figures/{op}.svg"' in (built_site / "ops" / f"{op}.html").read_text(), op
        assert (built_site / "ops" / "figures" / f"{op}.svg").read_text().startswith("<svg"), op
    porting = (built_site / "porting.html").read_text()
    assert "XlaBuilder" in porting and "names present" in porting
    assert "DotGeneral" in (built_site / "search" / "search_index.json").read_text()


@pytest.mark.slow
@needs_mkdocs
def test_a_broken_link_fails_the_build(tmp_path: Path):
    src = tmp_path / "src"
    (src / "docs" / "ops").mkdir(parents=True)
    for page in [*site.PAGES, *site.notes()]:
        (src / "docs" / page).write_text(f"# {page}\n")
    (src / "docs" / "ops" / "index.md").write_text("# Operations\n\nSee [Nope](Nope.md).\n")
    config = src / "mkdocs.yml"
    config.write_text(site.yaml.safe_dump(site.mkdocs_config(src, tmp_path / "out", {})))
    with pytest.raises(site.SiteError, match="Nope.md"):
        site.run_mkdocs(config)


@pytest.mark.slow
@needs_mkdocs
@needs_chromium
def test_chromium_shows_the_matrix_the_op_page_and_search(built_site: Path):
    dom = browser.dump_dom(built_site, "support.html")
    rows = table_rows(dom)
    reports = support_matrix.load_reports(site.DEFAULT_REPORTS)
    assert [text for text, _ in rows[0]] == ["op", *reports]
    pad = next(row for row in rows if row[0][0] == "Pad")
    assert len(pad) == 1 + len(reports) and all("sm-cell" in classes for _, classes in pad[1:])
    assert re.search(r'<div class="md-search"[^>]*data-md-component="search"(?![^>]*hidden)', dom), \
        "the search box stays hidden: its worker did not load the index"
    op = browser.dump_dom(built_site, "ops/Pad.html")
    assert '<h1 id="pad">Pad' in op and 'id="examples"' in op and 'href="../support.html"' in op


def _pixels_of(image: np.ndarray, colour: tuple[int, int, int]) -> int:
    return int(np.all(image[..., :3] == np.array(colour, np.uint8), axis=-1).sum())


@pytest.mark.parametrize("name", sorted(site.SCREENSHOTS))
def test_committed_screenshot_shows_a_rendered_page(name: str):
    image = read_png(SCREENSHOTS / name)
    assert image.shape[:2] == (browser.WINDOW[1], browser.WINDOW[0])
    header = image[:40, :, :3].reshape(-1, 3)
    assert np.mean(np.all(header == np.array(HEADER, np.uint8), axis=-1)) > 0.8, "no material header"
    body = image[120:, 280:1000, :3]
    colours = len(np.unique(body.reshape(-1, 3), axis=0))
    dark = np.mean(body.max(axis=-1) < 128)
    assert colours > 20 and dark > 0.005, "the page body is blank"


def test_matrix_screenshot_shows_coloured_cells():
    image = read_png(SCREENSHOTS / "support_matrix.png")
    assert _pixels_of(image, PASS) > 2000, "no green (passed) matrix cells in the screenshot"
