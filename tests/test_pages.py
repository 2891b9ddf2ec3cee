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
