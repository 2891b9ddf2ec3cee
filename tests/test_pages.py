import xml.etree.ElementTree as ET

import pytest

import specs
from docgen.figures import FIGURES
from docgen.pages import render_index, render_op, write_docs
from docgen.upstream import SEED


def test_page_has_every_section():
    page = render_op(specs.get("Add"))
    for heading in ("# Add", "## Signatures", "## Arguments", "## Element types", "## Constraints", "## Examples",
                    "## Errors", "## Tolerance"):
        assert heading in page
    assert "- **C3**: broadcast_dimensions is strictly increasing." in page
    assert "s32[4,2] [[ 6,  7]" in page  # the composition example's output


def test_writes_one_page_per_op_and_an_index(tmp_path):
    written = write_docs(tmp_path)
    assert len([p for p in written if p.suffix == ".md"]) == len(specs.load_all()) + 1
    assert sorted(p.name for p in written if p.suffix == ".svg") == sorted(f"{op}.svg" for op in FIGURES)
    index = (tmp_path / "index.md").read_text()
    assert "[Add](Add.md)" in index


def test_docs_say_which_ops_are_executable():
    index = render_index(specs.load_all())
    assert "| [Bitcast](Bitcast.md) | yes |" in index
    assert "| [RngGetAndUpdateState](RngGetAndUpdateState.md) | **no** |" in index
    assert "| [Add](Add.md) | yes |" in index
    page = render_op(specs.get("RngGetAndUpdateState"))
    assert "*executable:* **no**" in page and "**Not executable:** its value is XLA's internal generator" in page


def test_sub_byte_integers_print_as_integers_and_narrow_floats_as_floats():
    """s4/u4/s2 values are ml_dtypes' integer types: the pages print them as integers (they printed as floats,
    `s4[4] [-8., 0., 1., 7.]`); f8 values print as their float values."""
    import ml_dtypes
    import numpy as np

    from docgen.pages import _literal_text

    assert "operand = s4[4] [-8,  0,  1,  7]" in render_op(specs.get("Clz"))
    assert _literal_text(np.array([2, -1, -8, 7], ml_dtypes.int4)) == "s4[4] [ 2, -1, -8,  7]"
    assert _literal_text(np.array([15, 0], ml_dtypes.uint4)) == "u4[2] [15,  0]"
    assert _literal_text(np.array([-1, 1], ml_dtypes.int2)) == "s2[2] [-1,  1]"
    assert _literal_text(np.array([0.5, -448], ml_dtypes.float8_e4m3fn)) == "f8e4m3fn[2] [   0.5, -448. ]"
    assert _literal_text(np.array([1, 2], np.int32)) == "s32[2] [1, 2]"


def test_every_op_page_names_its_upstream_section():
    from docgen import upstream

    assert set(upstream.SECTIONS) | upstream.NOT_UPSTREAM == set(specs.load_all())
    assert not set(upstream.SECTIONS) & upstream.NOT_UPSTREAM
    assert "*Upstream:* [Pad](https://openxla.org/xla/operation_semantics#pad) in XLA's operation semantics." \
        in render_op(specs.get("Pad"))
    assert "has no section for Zeta" in render_op(specs.get("Zeta"))
    # devsite's anchors: lower case, each run of other characters one underscore
    assert upstream.anchor("ConvWithGeneralPadding (convolution)") == "convwithgeneralpadding_convolution"
    url = "https://openxla.org/xla/operation_semantics#"
    assert upstream.link("ConcatInDim") == url + "concatindim_concatenate"  # the seed: "ConcatInDim (دمج)"
    assert upstream.link("Conv") == url + "conv_convolution"
    assert upstream.link("Add") == url + "add"  # a translated heading: the op its "see also" names
    assert upstream.link("AllGatherStart") == url + "allgather"  # documented in AllGather's section
    assert upstream.link("EqTotalOrder") == url + "eq"
    assert upstream.link("PartitionId") == url + "partitionid"  # XlaBuilder::BuildPartitionId, heading PartitionID
    assert upstream.link("Transpose") == url + "transpose"  # a section with no "see also" line
    assert upstream.link("Zeta") is None


@pytest.mark.skipif(not SEED.is_file(), reason=f"the seed {SEED} is not on this machine")
def test_the_upstream_table_is_what_the_seed_gives():
    """SECTIONS and NOT_UPSTREAM are derived from the seed (python -m docgen.upstream --write): every op maps to a
    heading the seed has, and no op said to be undocumented has a signature line in it."""
    from docgen import upstream

    text = SEED.read_text()
    mapping, missing = upstream.derive(sorted(specs.load_all()), text)
    assert mapping == upstream.SECTIONS and set(missing) == upstream.NOT_UPSTREAM
    english = {s.english for s in upstream.sections(text)}
    assert set(upstream.SECTIONS.values()) <= english
    assert {"Pad", "ConvGeneralDilated", "ReduceWindow", "Gather", "Scatter"} <= english
    for op in upstream.NOT_UPSTREAM:
        assert f"\n{op}(" not in text, op


def _cells(svg: str) -> list[tuple[str, str]]:
    """(fill, text) of each cell of a figure, in drawing order."""
    root = ET.fromstring(svg)
    items = list(root)
    return [(a.get("fill"), b.text) for a, b in zip(items, items[1:]) if a.tag.endswith("rect")]


def test_figures_are_drawn_from_what_each_result_element_reads():
    """Pad's example interior_and_negative_edges: operand [[1, 2, 3], [4, 5, 6]], config low/high/interior
    (1, 0, 1) and (-1, 2, 0): row 1 of the result is [2, 3, 0, 0] and row 3 [5, 6, 0, 0] (the -1 removes the
    first column), the rest padding. ConvGeneralDilated's seed_pseudocode_2d: a 2x2 window of ones, stride 2,
    padding 1 low: result (1, 1) = 5 + 6 + 8 + 9 = 28."""
    from docgen import figures

    pad = specs.get("Pad")
    read = figures.reads(pad, figures.example_of(pad, "interior_and_negative_edges"), ("operand",))
    assert {k: v for k, v in read.items() if v} == {
        (1, 0): {("operand", 0, (0, 1))}, (1, 1): {("operand", 0, (0, 2))},
        (3, 0): {("operand", 0, (1, 1))}, (3, 1): {("operand", 0, (1, 2))}}
    cells = _cells(figures.figure_svg(pad))
    fills = {text: {fill for fill, t in cells if t == text} for text in ("1", "2", "3", "4", "5", "6")}
    assert fills["1"] == fills["4"] == {figures.WHITE}  # removed by the negative low edge: read by none
    assert all(len(fills[t]) == 1 and fills[t] != {figures.WHITE} for t in "2356")  # operand and result cell
    assert len(set().union(*(fills[t] for t in "2356"))) == 4
    zeros = [fill for fill, t in cells if t == "0"]  # the padding value's own cell, then 12 padded result cells
    assert zeros == [figures.WHITE] + [figures.UNREAD] * 12

    conv = specs.get("ConvGeneralDilated")
    read = figures.reads(conv, figures.example_of(conv, "seed_pseudocode_2d"), ("lhs",))
    assert read[(0, 0, 1, 1)] == {("lhs", 0, (0, 0, r, c)) for r in (1, 2) for c in (1, 2)}
    assert read[(0, 0, 0, 0)] == {("lhs", 0, (0, 0, 0, 0))}
    cells = _cells(figures.figure_svg(conv))  # lhs (9), rhs (4), result (4)
    lhs, result = {t: f for f, t in cells[:9]}, {t: f for f, t in cells[-4:]}
    assert result["28"] == lhs["5"] == lhs["9"] != result["11"] == lhs["7"]
    assert result["5"] == lhs["2"] == lhs["3"] and len(set(result.values())) == 4


def test_op_pages_show_their_figure():
    page = render_op(specs.get("Gather"))
    assert "## Figure" in page and "![Gather, golden example batched_dynamic_slice](figures/Gather.svg)" in page
    assert "## Figure" not in render_op(specs.get("Add"))
