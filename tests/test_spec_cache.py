"""The parsed-spec cache: used when current, rebuilt when any input changes, never required."""

import sys

import pytest

from specs import cache


@pytest.fixture
def cache_in(tmp_path, monkeypatch):
    monkeypatch.setenv("XLA_SEMANTICS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("XLA_SEMANTICS_NO_CACHE", raising=False)
    return tmp_path / "cache"


def test_second_call_reads_the_cache(cache_in):
    calls = []
    assert cache.cached("t", "k1", lambda: calls.append(1) or {"a": 1}) == {"a": 1}
    assert cache.cached("t", "k1", lambda: calls.append(1) or {"a": 2}) == {"a": 1}
    assert calls == [1]
    assert [p.name for p in cache_in.iterdir()] == ["t-k1.pickle"]


def test_a_new_key_rebuilds(cache_in):
    cache.cached("t", "k1", lambda: 1)
    assert cache.cached("t", "k2", lambda: 2) == 2


def test_corrupt_file_is_ignored_and_replaced(cache_in):
    cache_in.mkdir()
    (cache_in / "t-k1.pickle").write_bytes(b"not a pickle")
    assert cache.cached("t", "k1", lambda: 5) == 5
    assert cache.cached("t", "k1", lambda: 6) == 5


def test_unwritable_directory_still_works(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XLA_SEMANTICS_CACHE_DIR", str(blocker / "sub"))  # cannot be created
    assert cache.cached("t", "k", lambda: 3) == 3


def test_cache_can_be_turned_off(cache_in, monkeypatch):
    monkeypatch.setenv("XLA_SEMANTICS_NO_CACHE", "1")
    assert cache.cache_dir() is None
    cache.cached("t", "k", lambda: 3)
    assert not cache_in.exists()


def test_key_follows_yaml_content(tmp_path):
    spec = tmp_path / "op.yaml"
    spec.write_text("op: A\n")
    first = cache.content_key([spec])
    assert cache.content_key([spec]) == first
    spec.write_text("op: B\n")
    assert cache.content_key([spec]) != first
    other = tmp_path / "other.yaml"
    other.write_text("op: B\n")
    assert cache.content_key([spec, other]) != cache.content_key([spec])


def test_load_all_from_cache_matches_a_fresh_parse(cache_in, monkeypatch):
    from specs import loader
    paths = sorted(loader.OPS_DIR.glob("*.yaml"))[:5]
    fresh = loader._load_paths(paths)
    key = cache.content_key(paths)
    cache.cached("specs", key, lambda: fresh)
    again = cache.cached("specs", key, lambda: pytest.fail("cache not used"))
    assert repr(again) == repr(fresh)
    some = next(iter(again.values()))
    assert all(a.required == b.required for a, b in zip(some.args, fresh[some.name].args))


def test_cold_import_does_not_import_jax(cache_in):
    import subprocess
    code = ("import sys, specs; from backend import ops, XlaBuilder, Shape, PrimitiveType; specs.load_all();"
            "b = XlaBuilder('b'); p = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, [2]));"
            "ops.Add(p, p); print('jax' in sys.modules)")
    out = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
           for _ in range(2)]
    # the first run parses the YAML (a cold cache), the second reads the cache: neither needs jax to build ops
    assert out == ["False", "False"]


def test_key_covers_what_the_loader_imports_and_nothing_above():
    """SOURCES holds every module specs.loader imports, directly or not, and no module of a higher layer: a changed
    evaluator, lowering or shape rule leaves the cache valid."""
    from tests.test_layering import imports, modules

    known = modules()
    edges: dict[str, set[str]] = {}
    for imp in imports(known):
        edges.setdefault(imp.importer, set()).add(imp.imported)
    reached, pending = set(), ["specs.loader", "specs.cache"]
    while pending:
        module = pending.pop()
        if module not in reached:
            reached.add(module)
            pending.extend(edges.get(module, ()))
    files = set(cache.source_files())
    assert {known[m] for m in reached if m.split(".")[0] in ("specs", "backend")} <= files
    assert known["specs.loader"] in files and known["backend.hlo.literals"] in files
    for module in ("backend.reference.unary", "backend.jax_backend.unary", "backend.rules.unary", "backend.ops"):
        assert known[module] not in files
