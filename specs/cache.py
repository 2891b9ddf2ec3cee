"""A cache of the parsed specs, so that start-up does not parse 80 YAML files every time.

The cache is a pickle of ``load_all()``'s result, keyed by a hash of everything that result
depends on: the YAML files' names and contents, the Python sources of the spec layer and of the
layers below it (:data:`SOURCES`: the loader, and the HLO vocabulary whose types it builds), and the
Python version. Any change to one of them gives a new key, so a stale cache is never read; a change
to a shape rule, an evaluator or a lowering leaves it valid.

It lives in ``$XLA_SEMANTICS_CACHE_DIR``, else ``$XDG_CACHE_HOME/xla-semantics``, else
``~/.cache/xla-semantics``. Writes go to a temporary file that is renamed into place, so
concurrent processes never read a half-written file. The cache is never required: an unreadable
or unwritable cache directory, or a corrupt file, means parsing the YAML as if there were none.
``XLA_SEMANTICS_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

_ROOT = Path(__file__).resolve().parent.parent
#: The Python sources the parsed specs depend on (relative to the project root): the spec layer and the layers
#: below it, which the loader imports (a test checks that this covers everything it imports).
SOURCES = ("specs/*.py", "backend/hlo/*.py", "backend/errors.py")
_MAX_KEPT = 8  # cache files kept per directory (older keys are removed)


def cache_dir() -> Path | None:
    """The cache directory, or ``None`` when caching is off."""
    if os.environ.get("XLA_SEMANTICS_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("XLA_SEMANTICS_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xla-semantics"


def content_key(yaml_files: Iterable[Path]) -> str:
    """A hash of the YAML files' names and contents and of the sources the parsed specs depend on."""
    digest = hashlib.sha256()
    digest.update(f"{sys.version_info[:3]} {pickle.HIGHEST_PROTOCOL}\n".encode())
    sources = source_files()
    for path in [*sorted(yaml_files), *sources]:
        digest.update(str(path).encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def source_files() -> list[Path]:
    """The files of :data:`SOURCES`."""
    return sorted({p for pattern in SOURCES for p in _ROOT.glob(pattern)})


def cached(name: str, key: str, build: Callable[[], T]) -> T:
    """``build()``'s result, from the cache file for ``name``/``key`` when there is one."""
    directory = cache_dir()
    if directory is None:
        return build()
    path = directory / f"{name}-{key}.pickle"
    value = _read(path)
    if value is not None:
        return value  # type: ignore[no-any-return]
    value = build()
    _write(path, value)
    return value


def _read(path: Path) -> Any:
    try:
        with open(path, "rb") as f:
            return pickle.load(f)  # noqa: S301 (our own file, keyed by content)
    except FileNotFoundError:
        return None
    except Exception:  # a corrupt or incompatible cache file is ignored (and replaced)
        return None


def _write(path: Path, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)  # atomic: readers see the old file or the whole new one
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _prune(path)
    except Exception:  # noqa: S110 (no cache is fine: it is never required)
        pass


def _prune(keep: Path) -> None:
    prefix = keep.name.rsplit("-", 1)[0] + "-"
    old = sorted((p for p in keep.parent.glob(prefix + "*.pickle") if p != keep),
                 key=lambda p: p.stat().st_mtime, reverse=True)
    for p in old[_MAX_KEPT - 1:]:
        try:
            p.unlink()
        except OSError:
            pass
