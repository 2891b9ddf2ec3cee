"""Build the documentation site (mkdocs-material): one page per op with its examples and support, an index by
category, search, the porting guide, the conformance suite's guide, the report schema and a support matrix.

    python -m docgen.site build [--out build/site] [--reports reports]
    python -m docgen.site screenshots [--site build/site] [--out docs/screenshots]

``build`` writes the Markdown and an ``mkdocs.yml`` into ``<out>-src/`` and runs ``mkdocs build --strict``, so a
broken link or a page missing from the navigation is an error. The site works from ``file://`` too (the
``offline`` plugin keeps search working without a server). Needs the ``docs`` extra.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from conformance.render import html_page
from conformance.report import SCHEMA_PATH
from docgen import figures, support_matrix
from docgen import porting_table as xla_client_surface
from docgen.pages import render_index, render_op
from specs.loader import OpSpec, by_category, load_all

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
DEFAULT_OUT = ROOT / "build" / "site"
DEFAULT_REPORTS = ROOT / "reports"
SITE_NAME = "xla-semantics"
#: Pages besides the op pages: site path -> navigation title, in navigation order.
PAGES = {"index.md": "Home", "support.md": "Support matrix", "porting.md": "Porting from xla_client",
         "conformance.md": "Running the suite"}

#: Front matter giving a page the navigation sidebar's width (wide tables; a sidebar with one entry).
WIDE = "---\nhide:\n  - navigation\n---\n\n"
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


class SiteError(RuntimeError):
    """The site could not be built (mkdocs missing, or ``mkdocs build --strict`` failed: its output says why)."""


def readme_section(title: str, readme: Path = README) -> str:
    """The README's ``## title`` section (up to the next ``## ``), as a page with the title as its heading."""
    text = readme.read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    body = text[start + 3:end if end >= 0 else len(text)]
    return "# " + body.strip("\n") + "\n"


def repoint_links(text: str, copied: dict[str, str], base: str = "") -> str:
    """Links to repository files, written in a file of the repository folder ``base``: those in ``copied``
    (repository-relative path -> site path) point at the copy; any other relative link becomes the path as
    code, so the site has no link leading outside it."""
    def one(m: re.Match[str]) -> str:
        label, target = m.group(1), m.group(2)
        if re.match(r"^[a-z]+:|^#", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        path = posixpath.normpath(posixpath.join(base, path))
        if path in copied:
            return f"[{label}]({copied[path]}{'#' + anchor if anchor else ''})"
        return f"{label} (`{path}` in the repository)"
    return _LINK.sub(one, text)


def notes(docs_dir: Path = DOCS) -> dict[str, str]:
    """The repository's ``docs/*.md`` (the report schema, backend notes...): site page -> title (its heading)."""
    found = {}
    for path in sorted(docs_dir.glob("*.md")):
        first = path.read_text().lstrip().split("\n", 1)[0]
        found[path.name] = first.lstrip("# ").strip() if first.startswith("#") else path.stem
    return found


def home_page(all_specs: dict[str, OpSpec], reports: dict[str, dict[str, Any]]) -> str:
    families = {s.family for s in all_specs.values()}
    categories = by_category(all_specs)
    intro = README.read_text().split("\n## ", 1)[0].split("\n", 1)[1].strip()
    return "\n".join([
        f"# {SITE_NAME}", "", intro, "",
        f"- [Operations](ops/index.md): {len(all_specs)} ops in {len(categories)} categories of {len(families)} "
        "families, one page each with its signatures, arguments, constraints, worked examples, errors, tolerance "
        "and backend support.",
        f"- [Support matrix](support.md): ops x backends ({', '.join(reports) or 'no report committed'}), "
        "from the committed conformance reports.",
        "- [Porting from xla_client](porting.md): the former `jax.lib.xla_client` surface, name by name.",
        "- [Running the suite](conformance.md) and its [report schema](report_schema.md).",
        "", "Use the search box (top right) to find an op, a constraint or an argument by name.", ""])


def mkdocs_config(src: Path, out: Path, all_specs: dict[str, OpSpec]) -> dict[str, Any]:
    ops_nav: list[Any] = [{"Index by category": "ops/index.md"}]
    ops_nav += [{category: [f"ops/{s.name}.md" for s in ops]} for category, ops in by_category(all_specs).items()]
    nav: list[Any] = [{"Home": "index.md"}, {"Operations": ops_nav}]
    nav += [{title: page} for page, title in PAGES.items() if page != "index.md"]
    nav.append({"Notes": [{title: page} for page, title in notes().items()]})
    return {
        "site_name": SITE_NAME, "docs_dir": str(src / "docs"), "site_dir": str(out), "strict": True,
        "use_directory_urls": False,
        "theme": {"name": "material", "font": False,
                  "palette": {"primary": "indigo", "accent": "indigo"},
                  "features": ["navigation.tabs", "navigation.top", "navigation.indexes", "search.highlight",
                               "content.code.copy"]},
        "plugins": ["search", "offline"],
        "markdown_extensions": ["tables", "attr_list", "admonition", {"toc": {"permalink": True}}],
        "extra_css": ["assets/support_matrix.css"],
        "validation": {"nav": {"omitted_files": "warn", "not_found": "warn"},
                       "links": {"not_found": "warn", "absolute_links": "warn", "unrecognized_links": "warn",
                                 "anchors": "warn"}},
        "nav": nav,
    }


def write_sources(src: Path, out: Path, reports_dir: Path) -> Path:
    """The Markdown pages, assets and ``mkdocs.yml`` under ``src``; returns the config's path."""
    if src.exists():
        shutil.rmtree(src)
    docs = src / "docs"
    (docs / "ops").mkdir(parents=True)
    (docs / "assets").mkdir()
    (docs / "reports").mkdir()
    all_specs = load_all()
    reports = support_matrix.load_reports(reports_dir)
    for spec in all_specs.values():
        head, _, rest = render_op(spec).partition("\n## ")
        page = f"{head.rstrip()}\n\n{support_matrix.op_line(spec.name, reports)}\n\n## {rest}"
        (docs / "ops" / f"{spec.name}.md").write_text(page)
    (docs / "ops" / "index.md").write_text(render_index(all_specs))
    figures.write_figures(docs / "ops" / "figures", all_specs)
    scoreboards = {}
    for name, report in reports.items():
        (docs / "reports" / f"{name}.html").write_text(html_page(report))
        scoreboards[name] = f"reports/{name}.html"
    matrix = support_matrix.render_page(all_specs, reports, scoreboards=scoreboards)
    (docs / "support.md").write_text(WIDE + matrix)
    (docs / "assets" / "support_matrix.css").write_text(support_matrix.CSS)
    (docs / "index.md").write_text(WIDE + home_page(all_specs, reports))
    porting = readme_section("Porting code written for `xla_client`")
    porting = porting.split(xla_client_surface.BEGIN)[0] + xla_client_surface.markdown()
    copied = {f"docs/{page}": page for page in notes()} | {"conformance/report_schema.json": "report_schema.json"}
    (docs / "porting.md").write_text(WIDE + repoint_links(porting, copied))
    (docs / "conformance.md").write_text(repoint_links(readme_section("The conformance suite"), copied))
    shutil.copy(SCHEMA_PATH, docs / "report_schema.json")
    for page in notes():
        (docs / page).write_text(repoint_links((DOCS / page).read_text(), copied, base="docs"))
    config = src / "mkdocs.yml"
    config.write_text(yaml.safe_dump(mkdocs_config(src, out, all_specs), sort_keys=False))
    return config


def run_mkdocs(config: Path) -> None:
    """``mkdocs build --strict`` with ``config``; a SiteError with mkdocs' output when it fails."""
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError as e:
        raise SiteError(f"the docs site needs the docs extra (pip install -e '.[docs]'): {e}") from None
    # Not -q: mkdocs counts the warnings that --strict turns into errors only where it logs them.
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-f", str(config)],
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    if done.returncode != 0:
        raise SiteError(f"mkdocs build --strict failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")


def build(out: Path = DEFAULT_OUT, reports_dir: Path = DEFAULT_REPORTS) -> Path:
    """Generate the sources next to ``out`` (``<out>-src``) and build the site into ``out`` with
    ``mkdocs build --strict``; returns ``out``. Raises SiteError with mkdocs' output when the build fails."""
    out = out.resolve()
    run_mkdocs(write_sources(out.parent / f"{out.name}-src", out, reports_dir))
    return out


#: The screenshots ``screenshots`` takes: file name -> page of the built site.
SCREENSHOTS = {"index.png": "ops/index.html", "op_page.png": "ops/Pad.html", "support_matrix.png": "support.html"}


def take_screenshots(site: Path, out: Path) -> list[Path]:
    from docgen import browser
    out.mkdir(parents=True, exist_ok=True)
    return [browser.screenshot(site, page, out / name) for name, page in SCREENSHOTS.items()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docgen.site", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="generate the pages and run mkdocs build --strict")
    b.add_argument("--out", type=Path, default=DEFAULT_OUT, help="site folder (default: build/site)")
    b.add_argument("--reports", type=Path, default=DEFAULT_REPORTS, help="reports folder (default: reports)")
    s = sub.add_parser("screenshots", help="screenshot the index, an op page and the matrix in headless Chromium")
    s.add_argument("--site", type=Path, default=DEFAULT_OUT, help="a built site (default: build/site)")
    s.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="default: docs/screenshots")
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            site = build(args.out, args.reports)
            print(f"built {site} (open {site / 'index.html'})")
        else:
            for path in take_screenshots(args.site.resolve(), args.out):
                print(f"wrote {path}")
    except (SiteError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
