"""A cache of the parsed specs, so that start-up does not parse 190 YAML files every time.

The cache holds ``load_all()``'s result as **data only**: a JSON encoding of the spec model that a strict
decoder (:class:`Codec`) turns back into the model's own types (the dataclasses the loader names, element
types, shapes, NumPy arrays of the element types' dtypes, ...) and nothing else; reading a cache file can
never run code (no pickle). It is keyed by a hash of everything that result depends on: the YAML files'
names and contents, the Python sources of the spec layer and of the layers below it (:data:`SOURCES`: the
loader, and the HLO vocabulary whose types it builds), and the Python version. Any change to one of them
gives a new key, so a stale cache is never read; a change to a shape rule, an evaluator or a lowering leaves
it valid.

A cache file is one header line (JSON: the format, the name, the key, the payload's length and an
HMAC-SHA256 of name, key and payload under a per-user secret kept next to it) and the payload. A file is
used only when all of these hold: it is a regular file owned by the current user that no one else can
write, the secret is such a file too (mode 0600), the header is exactly the expected one (this name and
this key), the payload has the stated length and HMAC, it decodes strictly (known tags and fields only)
and the caller's ``check`` accepts the result (the loader's: one spec per YAML file, each named after its
key). On any doubt the value is rebuilt (the YAML parsed) and the file replaced: a planted, modified,
truncated or empty (``{}``) file is never used.

It lives in ``$XLA_SEMANTICS_CACHE_DIR``, else ``$XDG_CACHE_HOME/xla-semantics``, else
``~/.cache/xla-semantics`` (created with mode 0700). Writes go to a temporary file that is renamed into
place, so concurrent processes never read a half-written file. The cache is never required: an unreadable
or unwritable cache directory, a bad file, or a secret others can read or write means parsing the YAML as if
there were none.
``XLA_SEMANTICS_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import math
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Layout, Shape
from backend.hlo.token import Token

T = TypeVar("T")

_ROOT = Path(__file__).resolve().parent.parent
#: The Python sources the parsed specs depend on (relative to the project root): the spec layer and the layers
#: below it, which the loader imports (a test checks that this covers everything it imports).
SOURCES = ("specs/*.py", "backend/hlo/*.py", "backend/errors.py")
FORMAT = "xla-semantics-cache/3"
SUFFIX = ".json"
SECRET_NAME = "secret"
_MAX_KEPT = 8  # cache files kept per directory (older keys are removed)
_MAX_HEADER = 4096
_MAX_FILE = 256 << 20  # a cache file larger than this is not one this module wrote


def cache_dir() -> Path | None:
    """The cache directory, or ``None`` when caching is off."""
    if os.environ.get("XLA_SEMANTICS_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("XLA_SEMANTICS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xla-semantics"


def private_dir(directory: Path) -> bool:
    """Create ``directory`` (mode 0700) if needed; whether it is a directory of the current user that no one
    else can write (what may be trusted to hold files this user's processes read back)."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(directory, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and _owned_private(st, 0o022)


def _owned_private(st: os.stat_result, forbidden: int) -> bool:
    """Owned by the current user (where the platform has users), with none of the ``forbidden`` mode bits."""
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return False
    return not (st.st_mode & forbidden)


def content_key(yaml_files: Iterable[Path]) -> str:
    """A hash of the YAML files' names and contents and of the sources the parsed specs depend on."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version_info[:3]} {FORMAT} {np.__version__}\n".encode())
    sources = source_files()
    for path in [*sorted(yaml_files), *sources]:
        digest.update(str(path).encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def source_files() -> list[Path]:
    """The files of :data:`SOURCES`."""
    return sorted({p for pattern in SOURCES for p in _ROOT.glob(pattern)})


# -- the strict codec -------------------------------------------------------------------------
class _Invalid(Exception):
    """What was read is not exactly what the codec writes (never leaves this module)."""


class Codec:
    """A JSON encoding of plain values (None, bool, int, float, str, list, tuple, dict), element types, shapes
    and layouts, tokens, NumPy arrays of the element types' dtypes, paths, the given frozen dataclasses, tuple
    subclasses and named constants, and a strict decoder of exactly that encoding: an unknown tag, a missing or
    extra field, a value of the wrong kind or an array whose bytes do not match its shape is refused."""

    def __init__(self, dataclass_types: Iterable[type] = (), tuple_types: Iterable[type] = (),
                 constants: dict[str, Any] | None = None) -> None:
        self._classes = {cls.__name__: cls for cls in dataclass_types}
        self._fields = {name: tuple(f.name for f in dataclasses.fields(cls)) for name, cls in self._classes.items()}
        self._tuples = {cls.__name__: cls for cls in tuple_types}
        self._constants = dict(constants or {})
        self._constant_ids = {id(v): k for k, v in self._constants.items()}
        #: tag -> (the object's keys, its decoder)
        self._handlers: dict[str, tuple[Any, Callable[[dict[str, Any]], Any]]] = {
            tag: (frozenset(keys), handler) for tag, keys, handler in (
                ("$t", ("$t",), self._tuple), ("$d", ("$d",), self._dict), ("$c", ("$c",), self._constant),
                ("$p", ("$p",), self._etype), ("$tok", ("$tok",), self._token), ("$path", ("$path",), self._path),
                ("$T", ("$T", "v"), self._tuple_subclass), ("$o", ("$o", "f"), self._object),
                ("$a", ("$a", "s", "b"), self._array), ("$s", ("$s", "d", "l", "t", "y"), self._shape),
                ("$l", ("$l", "p", "v"), self._layout))}

    # encoding: anything the codec does not know raises TypeError (the value is then not cached)
    def encode(self, value: Any) -> bytes:
        return json.dumps(self._enc(value), separators=(",", ":"), allow_nan=True).encode()

    def _enc(self, v: Any) -> Any:
        t = type(v)
        if v is None or t in (bool, int, float, str):
            return v
        if id(v) in self._constant_ids:
            return {"$c": self._constant_ids[id(v)]}
        if t is list:
            return [self._enc(x) for x in v]
        if t is tuple:
            return {"$t": [self._enc(x) for x in v]}
        if t.__name__ in self._tuples and self._tuples[t.__name__] is t:
            return {"$T": t.__name__, "v": [self._enc(x) for x in v]}
        if isinstance(v, dict):  # the loader's line-keeping mappings are dicts to every reader
            if all(type(k) is str and not k.startswith("$") for k in v):  # as a JSON object (the common case)
                return {k: self._enc(x) for k, x in v.items()}
            return {"$d": [y for k, x in v.items() for y in (self._enc(k), self._enc(x))]}
        if t is PrimitiveType:
            return {"$p": v.name}
        if t is Token:
            return {"$tok": 0}
        if t is np.ndarray:
            et = etypes.dtype_to_etype(v.dtype)
            data = np.ascontiguousarray(v).tobytes()
            return {"$a": etypes.short_name(et), "s": list(v.shape), "b": base64.b64encode(data).decode("ascii")}
        if t is Shape:
            layout = v._layout
            return {"$s": v.element_type().name, "d": list(v.dimensions()),
                    "l": None if layout is None else self._enc(layout),
                    "t": None if v._tuple is None else [self._enc(s) for s in v._tuple],
                    "y": list(v.dynamic_dimensions())}
        if t is Layout:
            return {"$l": list(v.minor_to_major),
                    "p": None if v.padded_dimensions is None else list(v.padded_dimensions),
                    "v": self._enc(v.padding_value)}
        if isinstance(v, Path):
            return {"$path": str(v)}
        if t.__name__ in self._classes and self._classes[t.__name__] is t:
            return {"$o": t.__name__, "f": [self._enc(getattr(v, name)) for name in self._fields[t.__name__]]}
        raise TypeError(f"the spec cache cannot encode a {t.__module__}.{t.__qualname__}")

    # decoding: exactly the encoding above, else _Invalid
    def decode(self, payload: bytes) -> Any:
        try:
            return json.loads(payload.decode("utf-8"), object_hook=self._hook)
        except _Invalid:
            raise
        except (ValueError, TypeError, KeyError, IndexError, RecursionError, OverflowError) as e:
            raise _Invalid(str(e)) from None

    def _hook(self, obj: dict[str, Any]) -> Any:
        """One JSON object of the encoding as its value: the first key is the tag, which names the only keys the
        object may have and the check of each value; an object whose first key is not a tag is a mapping of
        strings (the encoder writes any other mapping tagged)."""
        if not obj:
            return obj
        for tag in obj:
            if tag[0] != "$":
                return obj
            handler = self._handlers.get(tag)
            if handler is None or obj.keys() != handler[0]:
                break
            return handler[1](obj)
        raise _Invalid(f"unknown object with keys {sorted(obj)}")

    def _tuple(self, obj: dict[str, Any]) -> Any:
        v = obj["$t"]
        if type(v) is not list:
            raise _Invalid("bad tuple")
        return tuple(v)

    def _dict(self, obj: dict[str, Any]) -> Any:
        v = obj["$d"]
        if type(v) is not list or len(v) % 2:
            raise _Invalid("bad mapping")
        out = dict(zip(v[::2], v[1::2], strict=True))
        if 2 * len(out) != len(v):
            raise _Invalid("repeated key")
        return out

    def _constant(self, obj: dict[str, Any]) -> Any:
        v = obj["$c"]
        if type(v) is not str or v not in self._constants:
            raise _Invalid("bad constant")
        return self._constants[v]

    def _etype(self, obj: dict[str, Any]) -> Any:
        v = obj["$p"]
        if type(v) is not str or v not in PrimitiveType.__members__:
            raise _Invalid("bad element type")
        return PrimitiveType[v]

    def _token(self, obj: dict[str, Any]) -> Any:
        if obj["$tok"] != 0:
            raise _Invalid("bad token")
        return Token()

    def _path(self, obj: dict[str, Any]) -> Any:
        v = obj["$path"]
        if type(v) is not str:
            raise _Invalid("bad path")
        return Path(v)

    def _tuple_subclass(self, obj: dict[str, Any]) -> Any:
        name, v = obj["$T"], obj["v"]
        if type(name) is not str or name not in self._tuples or type(v) is not list:
            raise _Invalid("bad tuple")
        return self._tuples[name](v)

    def _object(self, obj: dict[str, Any]) -> Any:
        name, fields = obj["$o"], obj["f"]
        if type(name) is not str or name not in self._classes or type(fields) is not list \
                or len(fields) != len(self._fields[name]):
            raise _Invalid(f"bad object {name!r}")
        return self._classes[name](*fields)  # every field is an init field, in this order

    def _array(self, obj: dict[str, Any]) -> Any:
        shape, data, dtype = obj["s"], obj["b"], _DTYPES.get(obj["$a"])
        if dtype is None or type(shape) is not list or not all(type(d) is int and d >= 0 for d in shape) \
                or type(data) is not str:
            raise _Invalid("bad array")
        raw = bytearray(base64.b64decode(data, validate=True))
        if len(raw) != math.prod(shape) * dtype.itemsize:
            raise _Invalid("array bytes do not match its shape")
        return np.frombuffer(raw, dtype=dtype).reshape(shape)

    def _shape(self, obj: dict[str, Any]) -> Any:
        layout, tup, dims, dynamic = obj["l"], obj["t"], obj["d"], obj["y"]
        if obj["$s"] not in PrimitiveType.__members__ or type(dims) is not list or type(dynamic) is not list \
                or (layout is not None and type(layout) is not Layout) \
                or (tup is not None and not (type(tup) is list and all(type(s) is Shape for s in tup))):
            raise _Invalid("bad shape")
        return Shape(PrimitiveType[obj["$s"]], tuple(dims), layout, None if tup is None else tuple(tup),
                     tuple(dynamic))

    def _layout(self, obj: dict[str, Any]) -> Any:
        if type(obj["$l"]) is not list or not (obj["p"] is None or type(obj["p"]) is list):
            raise _Invalid("bad layout")
        return Layout(obj["$l"], obj["p"], obj["v"])


#: The dtype of each element type's short name (the arrays a cache file may hold).
_DTYPES = {etypes.short_name(et): etypes.etype_to_dtype(et) for et in etypes.ARRAY_TYPES}


_PLAIN = Codec()


# -- the cache --------------------------------------------------------------------------------
def cached(name: str, key: str, build: Callable[[], T], codec: Codec = _PLAIN,
           check: Callable[[Any], bool] = lambda value: True) -> T:
    """``build()``'s result, from the cache file for ``name``/``key`` when there is a valid one (``check``
    accepts what was decoded), else built and written."""
    directory = cache_dir()
    if directory is None:
        return build()
    path = directory / f"{name}-{key}{SUFFIX}"
    found, value = _read(path, name, key, codec, check)
    if found:
        return value  # type: ignore[no-any-return]
    value = build()
    _write(path, name, key, value, codec)
    return value


def _read_private(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file of the current user that no one else can write (not a
    link), at most ``limit`` bytes; else None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _owned_private(st, 0o022) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _secret(directory: Path, create: bool) -> bytes | None:
    """The per-user secret that authenticates the cache files of ``directory`` (mode 0600), created on first
    write; None when there is none or it is not private."""
    path = directory / SECRET_NAME
    if create and not path.exists():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError:
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(os.urandom(32).hex())
    data = _read_private(path, 64)
    if data is None or len(data) != 64:
        return None
    st = os.stat(path, follow_symlinks=False)
    if not _owned_private(st, 0o077):
        return None
    try:
        return bytes.fromhex(data.decode("ascii"))
    except ValueError:
        return None


def _mac(secret: bytes, name: str, key: str, payload: bytes) -> str:
    return hmac.new(secret, f"{FORMAT}\0{name}\0{key}\0".encode() + payload, hashlib.sha256).hexdigest()


def _read(path: Path, name: str, key: str, codec: Codec, check: Callable[[Any], bool]) -> tuple[bool, Any]:
    """(True, value) from a valid cache file, else (False, None): every doubt means not found."""
    secret = _secret(path.parent, create=False)
    if secret is None:
        return False, None
    data = _read_private(path, _MAX_FILE)
    if data is None:
        return False, None
    head, sep, payload = data.partition(b"\n")
    if not sep or len(head) > _MAX_HEADER:
        return False, None
    try:
        header = json.loads(head.decode("utf-8"))
    except ValueError:
        return False, None
    if not isinstance(header, dict) or set(header) != {"format", "name", "key", "length", "hmac"}:
        return False, None
    if (header["format"], header["name"], header["key"], header["length"]) != (FORMAT, name, key, len(payload)):
        return False, None
    if not isinstance(header["hmac"], str) or not hmac.compare_digest(header["hmac"],
                                                                       _mac(secret, name, key, payload)):
        return False, None
    try:
        value = codec.decode(payload)
    except _Invalid:
        return False, None
    try:
        ok = check(value)
    except Exception:  # a check that trips over a value it did not expect: not a valid cache
        ok = False
    return (True, value) if ok else (False, None)


def _write(path: Path, name: str, key: str, value: Any, codec: Codec) -> None:
    try:
        payload = codec.encode(value)
    except (TypeError, ValueError, RecursionError):
        return  # a value the codec cannot hold is simply not cached
    try:
        if not private_dir(path.parent):
            return
        secret = _secret(path.parent, create=True)
        if secret is None:
            return
        header = {"format": FORMAT, "name": name, "key": key, "length": len(payload),
                  "hmac": _mac(secret, name, key, payload)}
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(json.dumps(header).encode() + b"\n" + payload)
            os.replace(tmp, path)  # atomic: readers see the old file or the whole new one
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _prune(path)
    except Exception:  # noqa: S110 (no cache is fine: it is never required)
        pass


def _prune(keep: Path) -> None:
    prefix = keep.name.rsplit("-", 1)[0] + "-"
    for p in keep.parent.glob(prefix + "*.pickle"):  # the unsafe format of earlier versions: never read, removed
        try:
            p.unlink()
        except OSError:
            pass
    old = sorted((p for p in keep.parent.glob(prefix + "*" + SUFFIX) if p != keep),
                 key=lambda p: p.stat().st_mtime, reverse=True)
    for p in old[_MAX_KEPT - 1:]:
        try:
            p.unlink()
        except OSError:
            pass
