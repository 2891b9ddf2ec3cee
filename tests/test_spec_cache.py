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
    assert sorted(p.name for p in cache_in.iterdir()) == ["secret", "t-k1.json"]
    assert (cache_in / "secret").stat().st_mode & 0o077 == 0


def test_a_new_key_rebuilds(cache_in):
    cache.cached("t", "k1", lambda: 1)
    assert cache.cached("t", "k2", lambda: 2) == 2


def test_corrupt_file_is_ignored_and_replaced(cache_in):
    cache_in.mkdir()
    (cache_in / "t-k1.json").write_bytes(b"not a cache file")
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
    cache.cached("specs", key, lambda: fresh, codec=loader._CODEC)
    again = cache.cached("specs", key, lambda: pytest.fail("cache not used"), codec=loader._CODEC)
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


# -- attacks: a file in the cache directory is data, checked, and used only when this user's process wrote it ------
_ADD_CODE = ("import sys, json; from backend import ops, XlaBuilder, Shape, PrimitiveType, get_backend; import specs;"
             "import numpy as np; b = XlaBuilder('b'); p = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, [2]));"
             "ops.Add(p, p); s = specs.load_all();"
             "print(json.dumps([len(s), s['Add'].examples[0].expected.tolist()]))")


def _run_add(env_dir):
    import json
    import os
    import subprocess
    env = {**os.environ, "XLA_SEMANTICS_CACHE_DIR": str(env_dir)}
    env.pop("XLA_SEMANTICS_NO_CACHE", None)
    out = subprocess.run([sys.executable, "-c", _ADD_CODE], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _specs_key():
    from specs import loader
    return cache.content_key(sorted(loader.OPS_DIR.glob("*.yaml")))


def test_a_planted_pickle_cannot_run_code(cache_in, tmp_path):
    """The issue's attack: a pickle whose loading runs code, under the old and the new file name."""
    import os
    import pickle

    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    cache_in.mkdir(mode=0o700)
    key = _specs_key()
    for name in (f"specs-{key}.pickle", f"specs-{key}.json"):
        (cache_in / name).write_bytes(pickle.dumps(Evil()))
    count, expected = _run_add(cache_in)
    assert not marker.exists()
    assert count == len(list(__import__("specs").loader.OPS_DIR.glob("*.yaml"))) > 100
    assert not (cache_in / f"specs-{key}.pickle").exists()  # the unsafe format is removed, never read
    # the planted file was replaced by a valid one, which the next run reads
    assert cache.FORMAT.encode() in (cache_in / f"specs-{key}.json").read_bytes().split(b"\n")[0]
    assert _run_add(cache_in) == [count, expected]


def _planted(cache_in, mutate, secret_bytes):
    """Write a cache file of the real key holding the specs changed by ``mutate``, authenticated with
    ``secret_bytes`` (the attacker's guess)."""
    import dataclasses

    from specs import loader
    paths = sorted(loader.OPS_DIR.glob("*.yaml"))
    specs = dict(loader._load_paths(paths))
    specs["Add"] = mutate(specs["Add"], dataclasses)
    key = cache.content_key(paths)
    payload = loader._CODEC.encode(specs)
    import json
    header = {"format": cache.FORMAT, "name": "specs", "key": key, "length": len(payload),
              "hmac": cache._mac(secret_bytes, "specs", key, payload)}
    cache_in.mkdir(mode=0o700, exist_ok=True)
    (cache_in / f"specs-{key}.json").write_bytes(json.dumps(header).encode() + b"\n" + payload)


def _wrong_expected(spec, dataclasses):
    import numpy as np
    first = spec.examples[0]
    bad = dataclasses.replace(first, expected=np.full_like(first.expected, 12345))
    return dataclasses.replace(spec, examples=(bad, *spec.examples[1:]))


def test_modified_specs_in_a_planted_file_are_not_used(cache_in):
    import numpy as np
    fresh = _run_add(cache_in)  # creates the directory, its secret and a valid file
    assert 12345 not in np.ravel(fresh[1])
    _planted(cache_in, _wrong_expected, b"the attacker's guess")
    assert _run_add(cache_in) == fresh
    # the file is replaced by a valid one: only this user's processes, which hold the secret, write one that is read
    secret = bytes.fromhex((cache_in / "secret").read_text())
    _planted(cache_in, _wrong_expected, secret)
    assert 12345 in np.ravel(_run_add(cache_in)[1])  # (so the check above is what refused the planted file)


def test_a_secret_others_can_read_or_write_is_not_trusted(cache_in):
    import numpy as np
    fresh = _run_add(cache_in)
    secret = bytes.fromhex((cache_in / "secret").read_text())
    _planted(cache_in, _wrong_expected, secret)
    (cache_in / "secret").chmod(0o644)
    assert _run_add(cache_in) == fresh
    (cache_in / "secret").chmod(0o600)
    _planted(cache_in, _wrong_expected, secret)
    (cache_in / f"specs-{_specs_key()}.json").chmod(0o666)
    assert _run_add(cache_in) == fresh
    assert 12345 not in np.ravel(fresh[1])


@pytest.mark.parametrize("content", [b"{}", b"{}\n{}", b"", b"\xff\xfe\n\x00"])
def test_an_empty_or_garbage_file_does_not_give_zero_specs(cache_in, content):
    fresh = _run_add(cache_in)
    (cache_in / f"specs-{_specs_key()}.json").write_bytes(content)
    assert _run_add(cache_in) == fresh and fresh[0] > 100


@pytest.mark.parametrize("change", ["key", "length", "format", "extra", "payload"])
def test_a_header_that_does_not_match_is_refused(cache_in, change):
    import json
    _run_add(cache_in)
    path = cache_in / f"specs-{_specs_key()}.json"
    head, payload = path.read_bytes().split(b"\n", 1)
    header = json.loads(head)
    if change == "key":
        header["key"] = "0" * 32
    elif change == "length":
        header["length"] += 1
    elif change == "format":
        header["format"] = "xla-semantics-cache/1"
    elif change == "extra":
        header["x"] = 1
    else:
        payload = payload.replace(b'"Add"', b'"Sub"', 1)
    path.write_bytes(json.dumps(header).encode() + b"\n" + payload)
    from specs import loader
    paths = sorted(loader.OPS_DIR.glob("*.yaml"))
    found, _ = cache._read(path, "specs", _specs_key(), loader._CODEC, lambda v: loader._is_loaded(v, paths))
    assert not found


def test_the_strict_decoder_refuses_what_it_does_not_write():
    from specs import loader
    codec = loader._CODEC
    for bad in [b'{"$o": "OpSpec", "f": []}', b'{"$o": "Popen", "f": []}', b'{"$x": 1}', b'{"$p": "NOPE"}', b'{"$p": "F32", "x": 1}',
                b'{"$a": "f32", "s": [2], "b": "AAAA"}', b'{"$a": "object", "s": [1], "b": ""}', b'{"$c": "os"}',
                b'{"$d": [1, 2, 3]}', b'{"$d": [[1], 2]}', b'{"$d": [1, 2, 1, 3]}', b'\xff', b"[" * 100000]:
        with pytest.raises(cache._Invalid):
            codec.decode(bad)
    assert codec.decode(b'{"$t": [1, {"$p": "F32"}]}') == (1, cache.PrimitiveType.F32)
    assert codec.decode(b'{"$d": [1, {"$t": []}]}') == {1: ()} and codec.decode(b'{"a": {}}') == {"a": {}}


def test_the_codec_round_trips_every_spec():
    from specs import loader
    paths = sorted(loader.OPS_DIR.glob("*.yaml"))
    fresh = loader._load_paths(paths)
    data = loader._CODEC.encode(fresh)
    back = loader._CODEC.decode(data)
    assert repr(back) == repr(fresh) and loader._CODEC.encode(back) == data
    assert loader._is_loaded(back, paths) and not loader._is_loaded({}, paths)
    add = back["Add"]
    assert add.args[0].required and add.examples[0].expected.dtype == fresh["Add"].examples[0].expected.dtype
