"""The strict spec loader: unknown keys, missing pieces and uncovered constraints are errors."""

import textwrap

import pytest

import specs
from backend.errors import SpecError

GOOD = textwrap.dedent("""\
    op: Add
    family: elementwise_binary
    summary: test copy of Add.
    signatures: ["Add(lhs, rhs)"]
    args:
      lhs: {kind: operand, element: T, broadcast: true}
      rhs: {kind: operand, element: T, broadcast: true}
      broadcast_dimensions: {kind: attribute, type: int_list, default: []}
    element_types: {T: [float]}
    shape_rule: binary_elementwise
    type_constraint: C1
    constraints:
      C1: same element type.
    examples:
      - name: one
        inputs: {lhs: {"f32[1]": [1]}, rhs: {"f32[1]": [2]}}
        expected: {"f32[1]": [3]}
    errors:
      - {violates: C1, inputs: {lhs: "f32[1]", rhs: "s32[1]"}}
    tolerance: exact
    """)


def _load(tmp_path, text, name="add.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return specs.load_file(path)


def test_good_spec_loads(tmp_path):
    spec = _load(tmp_path, GOOD)
    assert spec.name == "Add" and spec.constraints == {"C1": "same element type."}
    assert spec.examples[0].expected.tolist() == [3.0]


def test_unknown_top_level_key_names_file_and_line(tmp_path):
    with pytest.raises(SpecError, match=r"add.yaml:4: spec.colour: unknown key 'colour'"):
        _load(tmp_path, GOOD.replace("signatures:", "colour: red\nsignatures:"))


def test_unknown_arg_key(tmp_path):
    with pytest.raises(SpecError, match=r"add.yaml:\d+: args.lhs.elemnt: unknown key"):
        _load(tmp_path, GOOD.replace("lhs: {kind: operand, element: T", "lhs: {kind: operand, elemnt: T"))


def test_missing_key(tmp_path):
    with pytest.raises(SpecError, match="missing required key 'tolerance'"):
        _load(tmp_path, GOOD.replace("tolerance: exact\n", ""))


def test_constraint_without_error_example(tmp_path):
    text = GOOD.replace("  C1: same element type.\n", "  C1: same element type.\n  C2: another rule.\n")
    with pytest.raises(SpecError, match=r"constraints.C2: constraint has no error example"):
        _load(tmp_path, text)


def test_error_naming_unknown_constraint(tmp_path):
    with pytest.raises(SpecError, match="'C9' is not a constraint id of Add"):
        _load(tmp_path, GOOD.replace("violates: C1", "violates: C9"))


def test_op_without_functions(tmp_path):
    text = GOOD.replace("op: Add", "op: Frobnicate").replace("shape_rule: binary_elementwise\n", "")
    with pytest.raises(SpecError, match="no shape rule registered as 'Frobnicate'"):
        _load(tmp_path, text, "frobnicate.yaml")


def test_bad_literal(tmp_path):
    with pytest.raises(SpecError, match=r"examples\[0\].expected"):
        _load(tmp_path, GOOD.replace('expected: {"f32[1]": [3]}', 'expected: {"f32[2]": [3]}'))


def test_duplicate_key(tmp_path):
    with pytest.raises(SpecError, match="duplicate key 'summary'"):
        _load(tmp_path, GOOD.replace("summary: test copy of Add.", "summary: a\nsummary: b"))


def test_every_shipped_spec_loads_and_covers_its_constraints():
    all_specs = specs.load_all()
    assert len(all_specs) >= 5
    for spec in all_specs.values():
        assert {e.violates for e in spec.errors} == set(spec.constraints), spec.name
