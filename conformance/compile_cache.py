"""jax's persistent compilation cache for suite runs: a second run of the same cases loads the compiled
programs from disk instead of compiling them again.

The cache lives in ``jax/`` under the spec cache's directory (``$XLA_SEMANTICS_CACHE_DIR``, else
``$XDG_CACHE_HOME/xla-semantics``, else ``~/.cache/xla-semantics``; see :mod:`specs.cache`) and every
program is written, however quickly it compiled (jax's default keeps only those taking a second or
more, and the suite's programs take milliseconds each). ``XLA_SEMANTICS_NO_CACHE=1`` turns it off; a
compilation cache directory the user set for jax (``JAX_COMPILATION_CACHE_DIR``) is left as it is.
When the directory grows past :data:`MAX_BYTES`, the least recently written entries are removed
down to half of it (jax's own size limit needs the ``filelock`` package).

jax loads the compiled programs it finds there and runs them, so the directory (and the spec cache's above it) is
used only when it belongs to the current user and no one else can write to it (:func:`specs.cache.private_dir`;
created with mode 0700): a directory others can write to means running without the cache.
"""

from __future__ import annotations

import os
from pathlib import Path

from specs.cache import cache_dir, private_dir

#: The size the cache directory may reach before old entries are removed.
MAX_BYTES = 1 << 30


def enable_compilation_cache() -> Path | None:
    """Point jax's persistent compilation cache at the suite's directory; the directory in use, or None."""
    import jax

    own = jax.config.jax_compilation_cache_dir
    if own:
        return Path(own)
    base = cache_dir()
    if base is None:
        return None
    directory = base / "jax"
    if not (private_dir(base) and private_dir(directory)):  # others could plant compiled code there
        return None
    try:
        prune(directory)
    except OSError:  # an unwritable cache directory: run without the cache
        return None
    jax.config.update("jax_compilation_cache_dir", str(directory))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    return directory


def prune(directory: Path, max_bytes: int = MAX_BYTES) -> None:
    """Remove the oldest files of ``directory`` until it holds at most half of ``max_bytes``, when it
    holds more than ``max_bytes``."""
    entries = []
    for entry in os.scandir(directory):
        try:
            if entry.is_file():
                stat = entry.stat()
                entries.append((stat.st_mtime, stat.st_size, entry.path))
        except OSError:
            continue
    total = sum(size for _, size, _ in entries)
    if total <= max_bytes:
        return
    for _, size, path in sorted(entries):
        if total <= max_bytes // 2:
            break
        try:
            os.unlink(path)
            total -= size
        except OSError:
            pass
