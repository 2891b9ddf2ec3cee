"""Running a snippet in a fresh Python process: for checks whose failure would end the test run's process
(an abort inside XLA), so that a regression fails one test instead."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_isolated(code: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``code`` (dedented) run by this interpreter in the repository root, its output captured; a process that
    does not end within ``timeout`` seconds is killed and its result has returncode -9."""
    full_env = {**os.environ, "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu"), **(env or {})}
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), full_env.get("PYTHONPATH", "")) if p)
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                              env=full_env, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return subprocess.CompletedProcess(e.cmd, -9, out, err + f"\n(killed after {timeout} s)")
