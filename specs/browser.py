"""Headless Chromium for the docs site: screenshots of built pages and their DOM after scripts ran."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

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


def _run(page: Path, *flags: str, timeout: float = 120) -> str:
    exe = find_chromium()
    if exe is None:
        raise RuntimeError(f"no Chromium found (looked for {', '.join(CANDIDATES)}); on Debian: "
                           "apt-get install -y chromium")
    if not page.is_file():
        raise RuntimeError(f"{page} does not exist: build the site first (python -m specs.site build)")
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", *flags, page.resolve().as_uri()],
                              capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed on {page} (exit {done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def screenshot(page: Path, out: Path, window: tuple[int, int] = WINDOW) -> Path:
    """A PNG of ``page`` as a ``window``-sized browser shows it."""
    out = out.resolve()
    _run(page, f"--screenshot={out}", f"--window-size={window[0]},{window[1]}")
    if not out.is_file():
        raise RuntimeError(f"chromium wrote no screenshot of {page} to {out}")
    return out


def dump_dom(page: Path) -> str:
    """The page's DOM, serialized after its scripts ran."""
    return _run(page, "--dump-dom")
