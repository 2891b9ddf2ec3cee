"""docs/element_type_audit.md and tools/element_type_audit.py: the committed table agrees with the specs as they are,
every op the Settled table names has nothing left that XLA runs and its spec refuses, and the tool's oracle (jax
lowering and compiling on the CPU) still runs what was settled."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

import specs
from backend.hlo import etypes

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "element_type_audit.md").read_text()


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("element_type_audit", ROOT / "tools" / "element_type_audit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _types(cell: str) -> set[str]:
    return set() if cell.strip() == "-" else {name.strip() for name in cell.split(",")}


def _audit_rows() -> dict[str, tuple[set[str], set[str]]]:
    """op -> (types the spec accepts and XLA refuses, types XLA runs and the spec refuses), from the committed table."""
    table = DOC[DOC.index("<!-- audit table -->"):DOC.index("<!-- end audit table -->")]
    rows = {}
    for line in table.splitlines()[3:]:
        op, _family, spec_only, xla_only = (cell.strip() for cell in line.strip("|").split("|"))
        rows[op] = (_types(spec_only), _types(xla_only))
    return rows


def _settled_ops() -> set[str]:
    section = DOC[DOC.index("## Settled in the specs"):DOC.index("## Differences left as they are")]
    first_cells = [line.strip("|").split("|")[0] for line in section.splitlines() if line.startswith("| ")][1:]
    return {op.strip() for cell in first_cells for op in cell.split(",")}


def _accepted(op: str) -> set[str]:
    return {etypes.short_name(t) for t in specs.get(op).element_types["T"]}


def test_the_committed_table_matches_the_specs() -> None:
    """A type in the "spec accepts" column is accepted by the op's spec, one in the "XLA runs" column is not: the table
    was regenerated after the specs last changed (python tools/element_type_audit.py --markdown ...)."""
    rows = _audit_rows()
    assert len(rows) > 60 and {"Lgamma", "Clamp", "Sign"} <= set(rows)
    for op, (spec_only, xla_only) in rows.items():
        accepted = _accepted(op)
        assert spec_only <= accepted, (op, spec_only - accepted)
        assert not xla_only & accepted, (op, xla_only & accepted)


def test_settled_ops_leave_nothing_xla_runs_unaccepted() -> None:
    rows = _audit_rows()
    settled = _settled_ops()
    assert {"Max", "Min", "Atan2", "Lgamma", "Igamma", "RandomGammaGrad", "Acos", "Asin", "Clamp"} <= settled
    assert {op: rows[op][1] for op in settled if rows[op][1]} == {}


@pytest.mark.parametrize(("op", "type_name"), [("Lgamma", "f8e4m3fn"), ("Igammac", "f4e2m1fn"), ("Asin", "f4e2m1fn"),
                                               ("Clamp", "c64"), ("Zeta", "f8e8m0fnu")])
def test_xla_runs_what_was_settled(op: str, type_name: str) -> None:
    """The tool's oracle: jax lowers and XLA compiles the op on these types (so the spec accepts them)."""
    tool = _tool()
    arity = len([a for a in specs.get(op).args if a.kind == "operand"])
    etype = etypes.from_short_name(type_name)
    assert tool.xla_accepts(tool.lax_function(op, arity), etype, arity) is None
    assert type_name in _accepted(op)


def test_the_tool_renders_one_row_per_op() -> None:
    tool = _tool()
    rows = [{"op": "Sign", "family": "unary", "spec_only": [], "xla_only": [etypes.PrimitiveType.U8]}]
    assert tool.markdown(rows).splitlines()[2] == "| Sign | unary | - | u8 |"
    assert re.search(r"^\| Sign \| unary \| s1 \| u2, u4, u8, u16, u32, u64 \|$", DOC, re.M)
