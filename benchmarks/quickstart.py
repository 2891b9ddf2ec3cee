"""``python -m benchmarks.quickstart``: the time of the README's first command, cold and then warm.

Runs ``python -m conformance run --backend jax --xfails conformance/known_failures/jax.txt`` (the README's command 1
after its install) twice in a fresh process each, both with the same new, empty cache directory
(``XLA_SEMANTICS_CACHE_DIR``): the first run is what a fresh machine pays (the spec cache and jax's persistent
compilation cache start empty), the second what every later run pays. For each run it prints the wall time, the CPU
time of the run and its workers (user + system, from the children's resource usage), the number of programs XLA
compiled (the entries the run added to jax's persistent compilation cache: every program the suite compiles is
written there) and the run's summary line. ``--write PATH`` also writes the table as Markdown with the machine and
the date; ``--jobs`` and ``--extra`` pass options to the run (``--extra='--ops Add,Sort'`` for a quick check of the
harness).

The targets (issue 25): at most 180 s of wall time cold and 60 s warm on 2 idle cores. Wall time depends on what
else the machine runs; the CPU time and the program count do not, so they say what changed between two revisions.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: The README's command 1, after its install.
COMMAND = ("-m", "conformance", "run", "--backend", "jax", "--xfails", "conformance/known_failures/jax.txt")
#: Wall-time targets in seconds on 2 idle cores.
TARGETS = {"cold": 180.0, "warm": 60.0}
_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Timing:
    """One run of the command: its wall and CPU seconds, the programs XLA compiled, its exit status and summary."""

    label: str
    wall: float
    cpu: float
    compiled: int
    status: int
    summary: str


def compiled_programs(cache: Path) -> int:
    """The programs in jax's persistent compilation cache under the suite's cache directory ``cache``."""
    directory = cache / "jax"
    return sum(1 for entry in directory.iterdir() if entry.name.endswith("-cache")) if directory.is_dir() else 0


def run_once(label: str, cache: Path, extra: list[str]) -> Timing:
    """Runs the command once with ``cache`` as the suite's cache directory; its :class:`Timing`."""
    env = {**os.environ, "XLA_SEMANTICS_CACHE_DIR": str(cache)}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)  # the suite's own cache is the one measured
    before = compiled_programs(cache)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *COMMAND, "-q", *extra], cwd=_ROOT, env=env, capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("backend ")]
    summary = lines[-1] if lines else (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
    return Timing(label, wall, cpu, compiled_programs(cache) - before, proc.returncode, summary)


def table(timings: list[Timing]) -> str:
    """The timings as a Markdown table, each wall time against its target."""
    rows = ["| run | wall s | target s | CPU s | programs compiled | exit |", "|---|---|---|---|---|---|"]
    for t in timings:
        rows.append(f"| {t.label} | {t.wall:.1f} | {TARGETS.get(t.label, float('nan')):.0f} | {t.cpu:.1f} | "
                    f"{t.compiled} | {t.status} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.quickstart", description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: the run's own)")
    parser.add_argument("--extra", default="", help="more options for the run, as one shell-quoted string")
    parser.add_argument("--write", metavar="PATH", help="also write the table as Markdown to PATH")
    args = parser.parse_args(argv)
    extra = shlex.split(args.extra) + ([] if args.jobs is None else ["-j", str(args.jobs)])
    with tempfile.TemporaryDirectory(prefix="xla-semantics-quickstart-") as tmp:
        cache = Path(tmp) / "cache"
        timings = [run_once("cold", cache, extra), run_once("warm", cache, extra)]
    text = table(timings)
    print(text)
    for t in timings:
        print(f"{t.label}: {t.summary}")
    if args.write:
        import jax

        header = (f"# README command 1, cold and warm\n\n`python -m benchmarks.quickstart{' ' + ' '.join(extra) if extra else ''}`"
                  f" on {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
                  f"{platform.python_version()}, jax {jax.__version__}, {datetime.date.today().isoformat()}.\n\n")
        Path(args.write).write_text(header + text + "\n\n" + "\n".join(f"- {t.label}: {t.summary}" for t in timings)
                                    + "\n")
    return 0 if all(t.status == 0 for t in timings) else 1


if __name__ == "__main__":
    sys.exit(main())
