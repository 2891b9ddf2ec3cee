"""``python -m benchmarks.builder``: the builder's cost per op, for 10^3 to 10^5 ops and parameters.

Prints, for each size N, the time per call of adding N Parameters (numbered 0..N-1) to one builder, of adding N
element-wise ops (a chain of Adds over one Parameter), of ``build()`` for each of those builders, and the
ratio of the per-op time at N to that at the smallest N (about 1 when adding is O(1) amortised; it grew
linearly with N for Parameters before, 8,000 of them taking 3-7 s). ``--write PATH`` also writes the table
as Markdown with the device and the date.

Times are the best of ``--rounds`` rounds (the least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import time
from collections.abc import Callable, Sequence

from backend import PrimitiveType, Shape, XlaBuilder, ops

SIZES = (1_000, 10_000, 100_000)
_SCALAR = Shape.scalar_shape(PrimitiveType.F32)


def _parameters(n: int) -> XlaBuilder:
    b = XlaBuilder("parameters")
    for i in range(n):
        ops.Parameter(b, i, _SCALAR, f"p{i}")
    return b


def _adds(n: int) -> XlaBuilder:
    b = XlaBuilder("adds")
    x = ops.Parameter(b, 0, _SCALAR, "x")
    for _ in range(n - 1):
        x = ops.Add(x, x)
    return b


def _best(fn: Callable[[], object], rounds: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def measure(sizes: Sequence[int] = SIZES, rounds: int = 3) -> list[dict[str, float]]:
    """One row per size: microseconds per Parameter, per Add, and per instruction of build()."""
    rows = []
    _parameters(100).build()  # warm up: the specs and the op functions load on first use
    _adds(100).build()
    for n in sizes:
        row: dict[str, float] = {"n": n}
        for label, make in (("parameter", _parameters), ("add", _adds)):
            seconds, builder = _best(lambda make=make, n=n: make(n), rounds)
            row[f"{label}_us"] = seconds / n * 1e6
            build_seconds, _ = _best(builder.build, rounds)  # type: ignore[attr-defined]
            row[f"build_{label}s_us"] = build_seconds / n * 1e6
        rows.append(row)
    return rows


def table(rows: list[dict[str, float]]) -> str:
    first = rows[0]
    base = int(first["n"])
    lines = [f"| ops N | Parameter (us/op) | x vs N={base} | Add (us/op) | x vs N={base} | build() of N Parameters "
             "(us/op) | build() of N Adds (us/op) |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {int(r['n']):,} | {r['parameter_us']:.1f} | {r['parameter_us'] / first['parameter_us']:.2f} "
                     f"| {r['add_us']:.1f} | {r['add_us'] / first['add_us']:.2f} | {r['build_parameters_us']:.2f} "
                     f"| {r['build_adds_us']:.2f} |")
    return "\n".join(lines)


def device() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()} on {platform.system()}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.builder", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated op counts")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per figure (the best is kept)")
    parser.add_argument("--write", metavar="PATH", help="also write the table as Markdown here")
    args = parser.parse_args(argv)
    rows = measure([int(s) for s in args.sizes.split(",")], args.rounds)
    text = table(rows)
    print(text)
    if args.write:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        with open(args.write, "w") as f:
            f.write(f"# Builder cost per op (`python -m benchmarks.builder`)\n\nDevice: {device()}.  \nDate: {stamp}.  \n"
                    f"Best of {args.rounds} rounds.\n\n{text}\n")


if __name__ == "__main__":
    main()
