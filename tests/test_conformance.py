"""The conformance suite itself: every case of every spec passes on the reference and jax backends,
every op has at least 30 cases, and every error case raises our error naming its constraint; the computations
the specs describe are read strictly."""

import json
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import specs
from backend import Shape, get_backend
from backend.hlo.token import is_token
from conformance import cases_for, run_cases
from conformance.build import build_case, computation_from_description
from conformance.cases import CONSTANTS, ERROR, PARAMETERS
from conformance.manifest import Manifest
from conformance.runner import FAILURES, PASSED
from conformance.tolerance import mismatch_mask
from specs.loader import Bound, PerDevice

ALL = specs.load_all()


@pytest.fixture(scope="module")
def all_cases():
    return {name: cases_for(spec) for name, spec in ALL.items()}


def test_at_least_30_cases_per_op(all_cases):
    few = {name: len(cases) for name, cases in all_cases.items() if ALL[name].executable and len(cases) < 30}
    assert not few, f"ops with fewer than 30 cases: {few}"


def test_the_reference_generates_every_case(all_cases):
    # a reference crash while computing an expected value is a bug of ours, never a dropped case
    crashed = [f"{c.id}: {c.generation_error}" for cases in all_cases.values() for c in cases if c.generation_error]
    assert not crashed, "\n".join(crashed[:20])


def _config_exercised(config, generated):
    if config.get("name"):
        return any(f"/{config['name']}:" in c.id for c in generated)
    wanted = {k: [list(d) for d in v] if v and isinstance(v[0], (list, tuple)) else list(v)
              for k, v in (config.get("shapes") or {}).items()}
    def dims(x):  # a token input ({"token[]": []}) has the config shape []; a multi-device input, each device's
        x = x[0] if isinstance(x, PerDevice) else x
        return [] if is_token(x) else list(np.shape(x))
    for c in generated:
        shapes = {k: [dims(x) for x in v] if isinstance(v, list) else dims(v) for k, v in c.inputs.items()}
        if c.attrs == dict(config.get("attrs") or {}) and all(shapes.get(k) == d for k, d in wanted.items()):
            return True
    return False


def test_every_generator_config_gives_a_case(all_cases):
    # a config the builder rejects for every element type it is paired with is a spec bug
    unused = [f"{name}: {config}" for name, spec in ALL.items() if spec.executable
              for config in spec.generator.get("configs") or []
              if not _config_exercised(config, [c for c in all_cases[name] if c.kind == "generated"])]
    assert not unused, "\n".join(unused)


def test_cases_come_in_both_operand_forms(all_cases):
    cases = {c.id: c for c in all_cases["Add"]}
    param, const = cases["Add/golden/pred_is_or/param"], cases["Add/golden/pred_is_or/const"]
    assert (param.operand_form, const.operand_form) == (PARAMETERS, CONSTANTS)
    assert param.inputs is const.inputs or all(np.array_equal(param.inputs[k], const.inputs[k]) for k in param.inputs)
    assert all(c.operand_form == PARAMETERS and not c.id.endswith(("/param", "/const"))
               for c in cases.values() if c.kind == ERROR)
    generated = [c.id for c in cases.values() if c.kind == "generated"]
    assert {i.rsplit("/", 1)[0] for i in generated if i.endswith("/param")} == \
        {i.rsplit("/", 1)[0] for i in generated if i.endswith("/const")}


def test_constant_operands_are_added_as_constants():
    comp, args = build_case(ALL["Add"], {"lhs": np.array([True, False]), "rhs": np.array([True, True])}, {},
                            CONSTANTS)
    assert args == [] and [i.opcode for i in comp.instructions] == ["Constant", "Constant", "Add"]
    # PRED addition is OR however the operands arrive (XLA's constant folder once gave XOR here)
    for name in ("reference", "jax"):
        assert get_backend(name).execute(comp, [])[0].tolist() == [True, True], name


def test_generation_is_reproducible():
    spec = ALL["Add"]
    a, b = cases_for(spec, seed=3), cases_for(spec, seed=3)
    assert [c.id for c in a] == [c.id for c in b]
    for x, y in zip(a, b):
        for k in x.inputs:
            assert np.asarray(x.inputs[k]).tobytes() == np.asarray(y.inputs[k]).tobytes(), x.id


ROOT = Path(__file__).resolve().parent.parent

#: Where XLA departs from the documents (the README's main command passes it with --xfails).
KNOWN_FAILURES = {"jax": "conformance/known_failures/jax.txt", "pallas": "conformance/known_failures/jax.txt"}


def _failures(backend_name, all_cases, keep):
    backend = get_backend(backend_name)
    known = KNOWN_FAILURES.get(backend_name)
    manifest = Manifest.read(str(ROOT / known)) if known else None
    failures = []
    for cases in all_cases.values():
        for r in run_cases([c for i, c in enumerate(cases) if keep(i, c)], backend):
            if r.status in FAILURES and not (manifest and manifest.match(r.case.id)):
                failures.append(f"{r.case.id}: {r.message}")
    return failures


def test_known_jax_failures_match_cases_and_still_fail(all_cases):
    """Every entry of the jax known-failures manifest names cases, and they fail on jax (if XLA changes,
    remove the entry)."""
    manifest = Manifest.read(str(ROOT / KNOWN_FAILURES["jax"]))
    listed = [c for cases in all_cases.values() for c in cases if manifest.match(c.id)]
    assert not manifest.stale(all_cases), [e.pattern for e in manifest.stale(all_cases)]
    results = run_cases(listed, get_backend("jax"))
    assert [r.case.id for r in results if r.status not in FAILURES] == []


def test_every_case_passes_on_reference(all_cases):
    failures = _failures("reference", all_cases, lambda i, c: True)
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"


#: One in how many cases of each kind and operand form the default jax run takes (each case compiles;
#: the whole suite on jax is the README's main command and the slow test below).
JAX_SAMPLE = {("golden", PARAMETERS): 1, ("golden", CONSTANTS): 3, ("generated", PARAMETERS): 8,
              ("generated", CONSTANTS): 24}


def _sampled_for_jax(case):
    """Every error case, every golden case with parameters; a stable sample, by a hash of the id, of the rest."""
    every = JAX_SAMPLE.get((case.kind, case.operand_form), 1)
    return every == 1 or zlib.crc32(case.id.rsplit("/", 1)[0].encode()) % every == 0


def test_cases_pass_on_jax(all_cases):
    failures = _failures("jax", all_cases, lambda i, c: _sampled_for_jax(c))
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"


@pytest.mark.slow
def test_every_case_passes_on_jax(all_cases):
    failures = _failures("jax", all_cases, lambda i, c: True)
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"


def test_golden_examples_pass_on_reference_exactly_as_written(all_cases):
    # The reference is the oracle for generated cases, so it must reproduce every golden example.
    backend = get_backend("reference")
    for cases in all_cases.values():
        golden = [c for c in cases if c.kind == "golden"]
        for r in run_cases(golden, backend):
            assert r.status == PASSED, f"{r.case.id}: {r.message}"


def test_error_cases_raise_the_named_constraint(all_cases):
    for cases in all_cases.values():
        for r in run_cases([c for c in cases if c.kind == ERROR], get_backend("reference")):
            assert r.status == PASSED, f"{r.case.id}: {r.message}"


def test_compare_exact_checks_signed_zero_and_nan():
    assert mismatch_mask(np.array([-0.0]), np.array([0.0]), None).tolist() == [True]
    assert mismatch_mask(np.array([np.nan]), np.array([np.nan]), None).tolist() == [False]
    assert mismatch_mask(np.array([1.0, np.inf]), np.array([1.0, -np.inf]), None).tolist() == [False, True]


def test_compare_ignores_the_sign_of_a_zero_part_of_a_complex_value_only():
    # XLA's exp(-0 - 0i) is 1 + 0i, C99's cexp 1 - 0i: either matches, exact or within a tolerance
    bound = Bound(rtol=1e-6, atol=0.0)
    got, want = np.complex64([complex(1, 0.0), complex(-0.0, 2)]), np.complex64([complex(1, -0.0), complex(0.0, 2)])
    for b in (None, bound):
        assert mismatch_mask(got, want, b).tolist() == [False, False]
        assert mismatch_mask(np.float32([0.0]), np.float32([-0.0]), b).tolist() == [True]
    # exact: a tiny part is not a zero of another sign; within a bound: 1e-30 of the modulus 1
    assert mismatch_mask(np.complex64([complex(1, 1e-30)]), np.complex64([complex(1, -0.0)]), None).tolist() == [True]
    assert mismatch_mask(np.complex64([complex(1, 1e-30)]), np.complex64([complex(1, -0.0)]), bound).tolist() == [False]


def test_a_complex_value_is_within_the_bound_of_its_modulus_not_of_each_part():
    """XLA's c64 Pow of (-0.8329056 + 0.32274222i)^(5.552737 - 2.611051i): the value is -742.88496 + 15.954861i
    (mpmath, 50 digits, rounded to c64); XLA gives an imaginary part 15.955277, 2.6e-5 of the part and 5.6e-7 of
    the modulus 743, and IREE -742.885 + 15.95414i: within c64's 1e-5, which bounds the modulus' error (exp(y log x)
    in f32 carries it into every part). A wrong value is still caught: the conjugate, a swapped part, an error of
    2e-5 of the modulus."""
    bound = Bound(rtol=1e-5, atol=0.0)
    want = np.complex64([complex(-742.88496, 15.954861)])
    got = np.complex64([complex(-742.88496, 15.955277), complex(-742.885, 15.95414)])
    assert mismatch_mask(got, np.repeat(want, 2), bound).tolist() == [False, False]
    for wrong in (complex(-742.88496, -15.954861), complex(15.954861, -742.88496), complex(-742.88496, 15.97)):
        assert mismatch_mask(np.complex64([wrong]), want, bound).tolist() == [True], wrong
    # a non-finite part is compared part by part: inf matches inf only, NaN matches NaN
    inf = np.complex64([complex(np.inf, 1.0)])
    assert mismatch_mask(inf, np.complex64([complex(np.inf, 1.0 + 1e-7)]), bound).tolist() == [False]
    assert mismatch_mask(inf, np.complex64([complex(-np.inf, 1.0)]), bound).tolist() == [True]
    assert mismatch_mask(np.complex64([complex(np.nan, 0)]), np.complex64([complex(1, 0)]), bound).tolist() == [True]


def test_cli_reports_and_exit_code(tmp_path):
    report = tmp_path / "r.json"
    junit = tmp_path / "r.xml"
    md = tmp_path / "r.md"
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "reference", "--ops", "Add",
                           "--report", str(report), "--junit", str(junit), "--markdown", str(md)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Add" in proc.stdout and "total" in proc.stdout
    data = json.loads(report.read_text())
    assert data["backend"]["name"] == "reference" and data["totals"]["passed"] == len(data["cases"])
    assert Counter(c["op"] for c in data["cases"]) == {"Add": len(data["cases"])}
    assert "<testsuite" in junit.read_text() and "| Add |" in md.read_text()


def test_cli_fails_on_a_failing_backend(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--backend", "tests.test_builder:DOUBLER",
                           "--ops", "Add", "--kinds", "golden"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "FAILED Add/golden/same_shape" in proc.stdout and "reproduction" in proc.stdout


def test_cli_unknown_op():
    proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--ops", "Nope"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "no spec for Nope" in proc.stderr


def test_described_computations_are_strict():
    shape = [Shape.array_shape(np.int32, ())]
    comp = computation_from_description({"params": ["s32[]"], "ops": [
        {"op": "Constant", "args": [{"s32[]": 2}], "name": "two"}, {"op": "Mul", "args": ["p0", "two"]}]}, shape)
    assert get_backend("reference").execute(comp, [np.int32(21)])[0] == 42
    with pytest.raises(ValueError, match="unknown keys"):
        computation_from_description({"params": [], "ops": [], "root": "x"}, shape)
    with pytest.raises(ValueError, match="not a parameter"):
        computation_from_description({"params": ["s32[]"], "ops": [{"op": "Neg", "args": ["q"]}]}, shape)
    with pytest.raises(ValueError, match="a step is"):
        computation_from_description({"params": ["s32[]"], "ops": [{"op": "Neg", "operand": "p0"}]}, shape)
