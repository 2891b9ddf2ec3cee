"""The strict spec loader: unknown keys, missing pieces and uncovered constraints are errors."""

import textwrap

import pytest
import yaml

import specs
from backend.completeness import load_checked
from backend.errors import SpecError

GOOD = textwrap.dedent("""\
    op: Add
    family: binary
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
    return load_checked(path)


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


GEN = 'generator:\n  count: 3\n  configs:\n    - {shapes: {lhs: [2], rhs: [2]}}\n'

# (old text, new text, "file:line: field: message" the SpecError must give)
WRONGLY_TYPED = [
    ("summary: test copy of Add.", "summary: 5", r"add.yaml:3: spec.summary: expected a string, got int 5"),
    ("summary: test copy of Add.", "summary: [a, b]", r"add.yaml:3: spec.summary: expected a string, got list"),
    ('signatures: ["Add(lhs, rhs)"]', "signatures: Add(lhs, rhs)",
     r"add.yaml:4: spec.signatures: expected a list of a string, got str"),
    ('signatures: ["Add(lhs, rhs)"]', "signatures: [1, 2]", r"add.yaml:4: spec.signatures: item 0: expected a string"),
    ("broadcast: true}\n  rhs", "broadcast: 'yes'}\n  rhs",
     r"add.yaml:6: args.lhs.broadcast: expected true or false, got str 'yes'"),
    ("broadcast: true}\n  rhs", "broadcast: 1}\n  rhs", r"args.lhs.broadcast: expected true or false, got int 1"),
    ("lhs: {kind: operand, element: T", "lhs: {kind: operand, element: [T]", r"args.lhs.element: expected a string"),
    ("type: int_list, default: []", "type: int_list, default: 3", r"add.yaml:8: args.broadcast_dimensions.default: "
     r"not a valid int_list: expected a sequence of integers, got 3"),
    ("type: int_list, default: []", "type: int_lst, default: []", r"add.yaml:8: args.broadcast_dimensions.type: "
     r"unknown attribute type 'int_lst'"),
    ("type: int_list, default: []", "type: 7, default: []", r"args.broadcast_dimensions.type: expected a string"),
    ("element_types: {T: [float]}", "element_types: {T: float}", r"element_types: 'T': expected a list of a string"),
    ("element_types: {T: [float]}", "element_types: {T: [1]}", r"element_types: 'T': item 0: expected a string"),
    ("  C1: same element type.", "  C1: [same]", r"spec.constraints: 'C1': expected a string, got list"),
    ("shape_rule: binary_elementwise", "shape_rule: true", r"spec.shape_rule: expected a string, got bool"),
    ("tolerance: exact", "tolerance: {float: {rtol: 'x'}}", r"tolerance.float.rtol: expected a finite number >= 0"),
    ("tolerance: exact", "tolerance: {float: {rtol: -1}}", r"tolerance.float.rtol: expected a finite number >= 0"),
    ("tolerance: exact", "tolerance: {float: {atol: .nan}}", r"tolerance.float.atol: expected a finite number >= 0"),
    ("tolerance: exact", "tolerance: {1: exact}", r"tolerance.1: expected an element type or class name"),
    ("tolerance: exact", "tolerance: exact\nexecutable: 'false'", r"spec.executable: expected true or false"),
    ("- name: one", "- name: 1", r"add.yaml:15: examples\[0\].name: expected a string, got int 1"),
    ("- name: one", "- name: one\n    doc: [x]", r"examples\[0\].doc: expected a string"),
    ("{violates: C1,", "{violates: 1,", r"errors\[0\].violates: expected a string, got int 1"),
    ("{violates: C1,", "{name: [x], violates: C1,", r"errors\[0\].name: expected a string"),
    ('inputs: {lhs: "f32[1]", rhs: "s32[1]"}', "inputs: [lhs]", r"add.yaml:19: errors\[0\].inputs: expected a mapping"),
    ('expected: {"f32[1]": [3]}', 'expected: {"f32[1]": [null]}', r"examples\[0\].expected: None is not a f32 value"),
    ('expected: {"f32[1]": [3]}', 'expected: {"u8[1]": [-1]}', r"examples\[0\].expected: malformed literal"),
    ("tolerance: exact", "tolerance: exact\n" + GEN.replace("count: 3", "count: 'many'"),
     r"generator.count: expected an integer >= 1, got str"),
    ("tolerance: exact", "tolerance: exact\n" + GEN.replace("count: 3", "count: 0"), r"generator.count: expected an "
     r"integer >= 1"),
    ("tolerance: exact", "tolerance: exact\n" + GEN.replace("count: 3", "special_values: 'no'"),
     r"generator.special_values: expected true or false"),
    ("tolerance: exact", "tolerance: exact\n" + GEN.replace("[2], rhs", "2, rhs"),
     r"generator.configs\[0\].shapes: 'lhs': expected a list of an integer or a {tuple: \[...\]} mapping or a list of "),
    ("tolerance: exact", "tolerance: exact\n" + GEN.replace("{shapes:", "{shape:"),
     r"generator.configs\[0\].shape: unknown key 'shape'"),
    ("tolerance: exact", "tolerance: exact\n" + GEN.replace("count: 3", "values: {lhs: {min: a}}"),
     r"generator.values: 'lhs': 'min': expected a number"),
    ("tolerance: exact", "tolerance: exact\nresult: {elem: T}", r"result.elem: unknown key 'elem'"),
    ("tolerance: exact", "tolerance: exact\nsee_also: Sub", r"spec.see_also: expected a list of a string"),
    ("  lhs: {kind: operand", "  1: {kind: operand", r"args.1: argument names are Python identifiers"),
    ("- name: one", "- name: one\n    implementation_defined: []",
     r"examples\[0\].implementation_defined: expected an entry id or a list of distinct entry ids, got \[\]"),
    ("- name: one", "- name: one\n    implementation_defined: [a, a]", r"a list of distinct entry ids, got \['a', 'a'\]"),
    ("- name: one", "- name: one\n    implementation_defined: [1]", r"a list of distinct entry ids, got \[1\]"),
    ("- name: one", "- name: one\n    implementation_defined: [nope]",
     r"example 'one' names unknown implementation_defined 'nope'"),
]


@pytest.mark.parametrize(("old", "new", "message"), WRONGLY_TYPED, ids=[w[1][:40] for w in WRONGLY_TYPED])
def test_wrongly_typed_value_names_file_line_and_field(tmp_path, old, new, message):
    assert old in GOOD
    with pytest.raises(SpecError, match=message):
        _load(tmp_path, GOOD.replace(old, new, 1))


def test_empty_optional_sections_are_allowed(tmp_path):
    spec = _load(tmp_path, GOOD + "semantics:\ngenerator:\nsee_also:\n")
    assert spec.semantics == "" and spec.generator == {}


@pytest.mark.parametrize(("text", "message"), [("", "add.yaml: spec: expected a mapping, got NoneType"),
                                               ("- a list\n", "add.yaml: spec: expected a mapping, got list"),
                                               ("op: Add\nop: Sub\n", "add.yaml:2: duplicate key 'op'"),
                                               ("op: Add\nsummary: [\n", "add.yaml:3: ")])
def test_not_a_spec_at_all(tmp_path, text, message):
    with pytest.raises(SpecError, match=message):
        _load(tmp_path, text)


def test_not_executable_needs_its_reason_and_only_then(tmp_path):
    with pytest.raises(SpecError, match=r"add.yaml:\d+: executable: an op with 'executable: false' says why"):
        _load(tmp_path, GOOD.replace("tolerance: exact\n", "tolerance: exact\nexecutable: false\n"))
    with pytest.raises(SpecError, match=r"add.yaml:\d+: not_executable: an op with 'executable: false' says why"):
        _load(tmp_path, GOOD.replace("tolerance: exact\n", "tolerance: exact\nnot_executable: no reason\n"))
    spec = _load(tmp_path, GOOD.replace("tolerance: exact\n", "tolerance: exact\nexecutable: false\n"
                                        "not_executable: a test reason\n"))
    assert not spec.executable and spec.not_executable == "a test reason"


def test_shape_text_takes_a_layout():
    from specs.loader import parse_shape
    shape = parse_shape("f32[2,3]{0,1}")
    assert shape.layout().minor_to_major == (0, 1) and shape.to_string() == "f32[2,3]{0,1}"
    assert parse_shape("f32[2,3]").to_string() == "f32[2,3]{1,0}"
    for bad in ("f32[2,3]{0}", "f32[2,3]{1,1}", "f32[2]{0"):
        with pytest.raises(ValueError):
            parse_shape(bad)


def test_every_spec_reads_the_same_with_the_pure_python_yaml_loader():
    """A PyYAML built without libyaml parses every spec, to the same document as libyaml's loader."""
    from specs import loader

    assert "python" in loader.YAML_LOADERS
    for path in sorted(loader.OPS_DIR.glob("*.yaml")):
        text = path.read_text()
        pure = yaml.load(text, Loader=loader.YAML_LOADERS["python"])  # noqa: S506 (safe loader subclass)
        if "libyaml" in loader.YAML_LOADERS:
            assert yaml.load(text, Loader=loader.YAML_LOADERS["libyaml"]) == pure, path.name  # noqa: S506
        spec = loader.load_file(path, yaml_loader="python")
        assert spec.name == pure["op"] and len(spec.examples) == len(pure["examples"]), path.name


def test_the_pure_python_loader_keeps_lines_and_refuses_duplicate_keys(tmp_path):
    from specs import loader

    path = tmp_path / "add.yaml"
    path.write_text(GOOD.replace("summary: test copy of Add.", "summary: a\nsummary: b"))
    with pytest.raises(SpecError, match=r"add.yaml:\d+: duplicate key 'summary'"):
        loader.load_file(path, yaml_loader="python")


def test_every_spec_is_implemented_by_every_layer():
    """backend.completeness: each spec has its shape rule, evaluator, lowering, outcome function and adapters."""
    from backend import completeness

    assert completeness.check_all() == len(specs.load_all()) >= 190
