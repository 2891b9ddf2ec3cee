"""The suite's fast paths give the results the plain one-case-at-a-time path gives: cases run in batches
(one compiled program per batch on jax, a failing case run again alone), jax's persistent compilation
cache, and the progress line."""

import io

import numpy as np
import pytest

import specs
from backend import OpError, get_backend
from backend.jax_backend.executor import JaxBackend
from conformance import compile_cache
from conformance.generate import cases_for
from conformance.progress import RunProgress, duration_text
from conformance.runner import FAILED, PASSED, Result, run_cases
from tests.support.mutant_backends import MUTANTS
from tests.support.running import op_computation


def _cases(*names, keep=4):
    return [c for name in names for i, c in enumerate(cases_for(specs.get(name))) if i % keep == 0]


def _fields(results):
    return [(r.case.id, r.status, r.message, r.reproduction, r.chosen) for r in results]


def test_batches_give_the_results_of_cases_run_alone():
    cases = _cases("Add", "Sort", "Clamp", "ConvertElementType", "While")
    backend = get_backend("jax")
    assert _fields(run_cases(cases, backend, batch_size=16)) == _fields(run_cases(cases, backend, batch_size=1))


def test_a_batch_holds_one_op_so_other_ops_keep_their_programs():
    from conformance.runner import batches
    cases = _cases("Abs", "Add", keep=1)
    first = [[c.id for c in b] for b in batches(cases, 32)]
    assert all(len({i.split("/")[0] for i in b}) == 1 for b in first) and all(len(b) <= 32 for b in first)
    # one more Abs case changes no Add batch: their programs, and jax's cache entries for them, stay
    again = [[c.id for c in b] for b in batches([cases[0], *cases], 32)]
    assert [b for b in again if b[0].startswith("Add/")] == [b for b in first if b[0].startswith("Add/")]
    pairs = list(batches(enumerate(cases), 32, lambda pair: pair[1]))  # (index, case) pairs, as the isolating runner
    assert [[c.id for _, c in b] for b in pairs] == first


def test_a_failure_in_a_batch_is_the_failure_of_the_case_alone():
    backend = next(m for m in MUTANTS if m.name == "div_floor").backend()
    cases = _cases("Div", keep=2)
    batched, alone = run_cases(cases, backend, batch_size=32), run_cases(cases, backend, batch_size=1)
    assert any(r.status == FAILED for r in alone) and any(r.status == PASSED for r in alone)
    assert _fields(batched) == _fields(alone)


def test_execute_batch_runs_each_item_as_execute_does():
    backend = get_backend("jax")
    f32, s64 = op_computation("Neg", "f32[3]"), op_computation("Neg", "s64[]")  # one 32-bit and one 64-bit program
    items = [(f32, [np.array([1, -2, 3], np.float32)]), (s64, [np.int64(-2**40)]),
             (f32, [np.array([0.5, 0, -0.0], np.float32)]), (f32, [np.zeros(2, np.float32)])]
    results = backend.execute_batch(items)
    assert results[0][0].tolist() == [-1, 2, -3] and results[0][0].dtype == np.float32
    assert results[1][0] == 2**40 and results[1][0].dtype == np.int64
    assert np.signbit(results[2][0]).tolist() == [True, True, False]
    assert isinstance(results[3], OpError)  # wrong argument shape: execute's own error, for this item only


def test_a_backend_overriding_execute_runs_each_item_through_it():
    class Doubling(JaxBackend):
        def execute(self, computation, arguments, replicas=1, **kwargs):
            return [2 * x for x in super().execute(computation, arguments, replicas, **kwargs)]

    comp = op_computation("Neg", "f32[]")
    assert [r[0] for r in Doubling().execute_batch([(comp, [np.float32(1)]), (comp, [np.float32(2)])])] == [-2, -4]


def test_the_status_line_shows_only_on_a_terminal():
    cases = cases_for(specs.get("Add"))[:3]
    for tty in (False, True):
        out = io.StringIO()
        progress = RunProgress(["Add", "Neg"], stream=out, status_line=tty)
        progress.expect("Add", 3)
        for c in cases:
            progress.add(Result(c, PASSED))
        progress.finish()
        text = out.getvalue()
        assert "[  1/2] Add" in text and text.count("...") == 1
        assert ("\r" in text) is tty and ("cases (" in text) is tty
    assert progress.estimated_total() == 6  # Neg's count is not known yet: the mean of the known ones
    assert "3/6 cases (50%)" in progress.status_text() and "left" in progress.status_text()
    assert duration_text(75.4) == "1m 15s" and duration_text(9.6) == "10s"


def test_the_compilation_cache_goes_under_the_suites_cache_directory(tmp_path, monkeypatch):
    import jax

    monkeypatch.setenv("XLA_SEMANTICS_CACHE_DIR", str(tmp_path))
    saved = {k: getattr(jax.config, k) for k in ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
                                                 "jax_persistent_cache_min_entry_size_bytes")}
    try:
        jax.config.update("jax_compilation_cache_dir", None)
        assert compile_cache.enable_compilation_cache() == tmp_path / "jax"
        assert jax.config.jax_persistent_cache_min_compile_time_secs == 0
    finally:
        for k, v in saved.items():
            jax.config.update(k, v)


def test_the_compilation_cache_is_not_used_in_a_directory_others_can_write(tmp_path, monkeypatch):
    """jax runs the compiled programs it loads from the cache: a directory others can write is not used."""
    import jax

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("XLA_SEMANTICS_CACHE_DIR", str(shared))
    saved = jax.config.jax_compilation_cache_dir
    try:
        jax.config.update("jax_compilation_cache_dir", None)
        assert compile_cache.enable_compilation_cache() is None
        assert jax.config.jax_compilation_cache_dir is None
        shared.chmod(0o700)
        (shared / "jax").mkdir(mode=0o777)
        (shared / "jax").chmod(0o777)
        assert compile_cache.enable_compilation_cache() is None
        (shared / "jax").chmod(0o700)
        assert compile_cache.enable_compilation_cache() == shared / "jax"
    finally:
        jax.config.update("jax_compilation_cache_dir", saved)


def test_pruning_removes_the_oldest_entries(tmp_path):
    import os
    for i in range(6):
        (tmp_path / f"e{i}").write_bytes(b"x" * 100)
        os.utime(tmp_path / f"e{i}", (i, i))
    compile_cache.prune(tmp_path, max_bytes=1000)
    assert len(list(tmp_path.iterdir())) == 6  # under the limit: kept
    compile_cache.prune(tmp_path, max_bytes=500)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e4", "e5"]  # down to half of the limit


@pytest.mark.parametrize("size", [1, 3])
def test_isolated_batches_keep_case_order(size):
    from conformance.isolation import IsolatedRunner

    cases = _cases("Add", keep=6)
    with IsolatedRunner("reference", jobs=2, batch_size=size) as runner:
        results = runner.run(cases)
    assert [r.case.id for r in results] == [c.id for c in cases] and {r.status for r in results} == {PASSED}
