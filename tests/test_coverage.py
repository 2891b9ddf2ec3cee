"""The suite's coverage of its own specs (python -m conformance coverage): arguments given
non-default values and documented edges hit by some case, checked against the allowlist."""

import json

import numpy as np
import pytest

import specs
from conformance import coverage
from conformance.cases import GOLDEN, Case
from conformance.cli import main
from conformance.generate import cases_for

ALL = specs.load_all()


@pytest.fixture(scope="module")
def uncovered():
    return coverage.coverage(ALL)


def test_coverage_does_not_shrink_and_the_allowlist_is_not_stale(uncovered):
    result = coverage.compare(uncovered, coverage.read_allowlist())
    assert result.ok, result.message()


def _case(op, inputs, attrs=None, expected=None):
    return Case(id=f"{op}/test", op=op, kind=GOLDEN, inputs=inputs, attrs=attrs or {},
                expected=np.float32(0) if expected is None else expected)


def _hits(op, edge_name, case):
    spec = ALL[op]
    (edge,) = [e for e in coverage.edges_for(spec) if e.name == edge_name]
    return edge.hit(spec, case)


def test_clamp_min_above_max_edge():
    f = np.float32
    below = _case("Clamp", {"min": f(0), "operand": np.array([1, 5], f), "max": f(3)})
    above = _case("Clamp", {"min": np.array([0, 4], f), "operand": np.array([1, 5], f), "max": f(3)})
    assert not _hits("Clamp", "min_above_max", below)
    assert _hits("Clamp", "min_above_max", above)


def test_window_edges():
    x = {"operands": [np.zeros(6, np.int32)], "init_values": [np.int32(0)]}
    base = {"computation": {"op": "Add"}, "window_dimensions": [2], "padding": [[0, 0]]}
    assert _hits("ReduceWindow", "overlapping_windows", _case("ReduceWindow", x, {**base, "window_strides": [1]}))
    assert not _hits("ReduceWindow", "overlapping_windows", _case("ReduceWindow", x, {**base, "window_strides": [2]}))
    assert not _hits("ReduceWindow", "non_identity_init", _case("ReduceWindow", x, base))
    ten = {"operands": x["operands"], "init_values": [np.int32(10)]}
    assert _hits("ReduceWindow", "non_identity_init", _case("ReduceWindow", ten, base))
    low = {"operands": x["operands"], "init_values": [np.int32(np.iinfo(np.int32).min)]}
    assert not _hits("ReduceWindow", "non_identity_init", _case("ReduceWindow", low, {**base, "computation": {"op": "Max"}}))


def test_dot_general_edges():
    lhs, rhs = np.ones((2, 2, 2), np.float32), np.ones((2, 2), np.float32)
    two = _case("DotGeneral", {"lhs": lhs, "rhs": rhs}, {"dimension_numbers": [[[1, 2], [0, 1]], [[], []]]})
    one = _case("DotGeneral", {"lhs": lhs, "rhs": rhs}, {"dimension_numbers": [[[2], [0]], [[], []]]})
    assert _hits("DotGeneral", "several_contracting_dimensions", two)
    assert not _hits("DotGeneral", "several_contracting_dimensions", one)
    assert not _hits("DotGeneral", "overflowing_products", one)
    big = _case("DotGeneral", {"lhs": lhs * np.float32(3e38), "rhs": rhs * 2}, one.attrs)
    assert _hits("DotGeneral", "overflowing_products", big)


def test_scatter_duplicate_indices_edges():
    dn = {"update_window_dims": [], "inserted_window_dims": [0], "scatter_dims_to_operand_dims": [0],
          "index_vector_dim": 1}

    def scatter(indices, dtype):
        return _case("Scatter", {"operands": [np.zeros(3, dtype)], "scatter_indices": np.array(indices, np.int32),
                                 "updates": [np.ones(len(indices), dtype)]},
                     {"update_computation": {"op": "Add"}, "dimension_numbers": dn})
    assert _hits("Scatter", "duplicate_indices_integer_add", scatter([[1], [1]], np.int32))
    assert not _hits("Scatter", "duplicate_indices_integer_add", scatter([[1], [1]], np.float32))
    assert not _hits("Scatter", "duplicate_indices", scatter([[0], [1]], np.int32))


def test_uncovered_items_of_a_spec_without_cases_list_every_argument_and_edge():
    items = coverage.uncovered_items(ALL["Dot"], [])
    assert {"arg:preferred_element_type", "arg:precision_config", "edge:overflowing_products",
            "edge:zero_size"} <= set(items)
    assert coverage.uncovered_items(ALL["Dot"], cases_for(ALL["Dot"])) == []


def test_compare_names_new_stale_and_new_ops():
    allow = coverage.Allowlist(frozenset({"Dot", "Clamp"}), frozenset({"Dot arg:precision_config", "Clamp edge:x"}))
    result = coverage.compare({"Dot": ["arg:precision_config", "edge:zero_size"], "Clamp": [], "Pad": ["edge:y"]},
                              allow)
    assert result.new == ["Dot edge:zero_size"]
    assert result.stale == ["Clamp edge:x"]
    assert result.new_ops == {"Pad": ["edge:y"]}
    message = result.message()
    assert "Dot edge:zero_size" in message and "remove them" in message and "Pad edge:y" in message
    assert "--write-allowlist" in message


def test_allowlist_round_trip(tmp_path):
    path = tmp_path / "allow.txt"
    coverage.write_allowlist({"Dot": ["edge:zero_size"], "Abs": []}, path)
    allow = coverage.read_allowlist(path)
    assert allow.ops == {"Dot", "Abs"} and allow.items == {"Dot edge:zero_size"}


def test_cli_json(capsys):
    assert main(["coverage", "--ops", "Clamp,SelectAndScatter", "--json", "--check"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["uncovered"]["Clamp"] == []
    assert "edge:rank0" in out["uncovered"]["SelectAndScatter"]
