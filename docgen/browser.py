"""Headless Chromium for the docs site: screenshots of built pages and their DOM after scripts ran.

The site is served from a localhost HTTP server for the browser (as a reader gets it from a web server):
from ``file://`` Chromium refuses the search worker its index, so search would not come up.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from docgen import png

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WINDOW = (1280, 900)
#: Flags that keep a headless run quiet and offline: no GPU, sandbox (root in CI), first-run, sync or updates.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--virtual-time-budget=5000")


def find_chromium() -> str | None:
    """The Chromium (or Chrome) executable on PATH, or None."""
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """``site`` served on a free localhost port while the block runs; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _run(site: Path, page: str, *flags: str, timeout: float = 120) -> str:
    exe = find_chromium()
    if exe is None:
        raise RuntimeError(f"no Chromium found (looked for {', '.join(CANDIDATES)}); on Debian: "
                           "apt-get install -y chromium")
    if not (site / page).is_file():
        raise RuntimeError(f"{site / page} does not exist: build the site first (python -m docgen.site build)")
    with tempfile.TemporaryDirectory() as profile, serve(site) as base:
        done = subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *flags, base + page],
                              capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed on {page} (exit {done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def screenshot(site: Path, page: str, out: Path, window: tuple[int, int] = WINDOW) -> Path:
    """A PNG of the built ``site``'s ``page`` (e.g. ``ops/Pad.html``) as a ``window``-sized browser shows it
    (re-encoded by :func:`docgen.png.write_png`, so tests decode it quickly)."""
    out = out.resolve()
    _run(site, page, f"--screenshot={out}", f"--window-size={window[0]},{window[1]}")
    if not out.is_file():
        raise RuntimeError(f"chromium wrote no screenshot of {page} to {out}")
    return png.write_png(out, png.read_png(out))


def dump_dom(site: Path, page: str) -> str:
    """The DOM of the built ``site``'s ``page``, serialized after its scripts ran."""
    return _run(site, page, "--dump-dom")
