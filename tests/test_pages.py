import specs
from docgen.pages import render_index, render_op, write_docs


def test_page_has_every_section():
    page = render_op(specs.get("Add"))
    for heading in ("# Add", "## Signatures", "## Arguments", "## Element types", "## Constraints", "## Examples",
                    "## Errors", "## Tolerance"):
        assert heading in page
    assert "- **C3**: broadcast_dimensions is strictly increasing." in page
    assert "s32[4,2] [[ 6,  7]" in page  # the composition example's output


def test_writes_one_page_per_op_and_an_index(tmp_path):
    written = write_docs(tmp_path)
    assert len(written) == len(specs.load_all()) + 1
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
