"""Benchmark harness shared by every ``python -m pallas_kernels.bench <op>``.

A *suite* is a named function returning :class:`BenchCase` objects; register
it with :func:`register_suite`.  The harness times the XLA op and the kernel
on the same inputs (warm-up, then the median of repeated device-synchronised
runs), and reports the ratio, TFLOP/s and the fraction of the device peak.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import platform
import re
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from pallas_kernels.bench.peaks import peak_tflops

RESULT_FORMAT_VERSION = 1


@dataclasses.dataclass(frozen=True)
class SuiteOptions:
    """How a suite builds its cases."""

    small: bool = False
    """Tiny shapes (to exercise the harness on CPU in interpret mode)."""
    interpret: bool = False


@dataclasses.dataclass(frozen=True)
class BenchCase:
    """One shape/dtype to time: the XLA op against the kernel."""

    name: str
    shape: str
    dtype: str
    flops: float
    make_inputs: Callable[[jax.Array], tuple[Any, ...]]
    xla_fn: Callable[..., Any]
    kernel_fn: Callable[..., Any]
    details: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class BenchResult:
    name: str
    shape: str
    dtype: str
    flops: float
    xla_seconds: float
    kernel_seconds: float
    kernel_tflops: float
    xla_tflops: float
    ratio_xla_over_kernel: float
    peak_tflops: float | None
    kernel_fraction_of_peak: float | None
    details: dict[str, Any]


Suite = Callable[[SuiteOptions], Sequence[BenchCase]]
ExtraTable = Callable[[Sequence["BenchResult"]], str]
_suites: dict[str, Suite] = {}
_extra_tables: dict[str, ExtraTable] = {}


def register_suite(name: str, suite: Suite, extra_table: ExtraTable | None = None) -> None:
    """Make ``python -m pallas_kernels.bench <name>`` run ``suite``.

    ``extra_table``, if given, formats a suite-specific table printed after the standard one
    (e.g. achieved bandwidth for memory-bound ops).
    """
    _suites[name] = suite
    if extra_table is not None:
        _extra_tables[name] = extra_table


def get_extra_table(name: str) -> ExtraTable | None:
    return _extra_tables.get(name)


def suite_names() -> list[str]:
    return sorted(_suites)


def get_suite(name: str) -> Suite:
    return _suites[name]


def has_accelerator() -> bool:
    return jax.default_backend() in ("gpu", "tpu", "cuda", "rocm")


def device_kind() -> str:
    return jax.devices()[0].device_kind


def median_seconds(
    fn: Callable[..., Any], args: Sequence[Any], warmup: int, repeats: int
) -> float:
    """Median wall time of ``fn(*args)`` waited to completion on the device.

    Each sample runs ``fn`` enough times back to back (>= ~5 ms) that launch
    overhead is amortised, then blocks until the device is done.
    """
    for _ in range(max(warmup, 1)):
        jax.block_until_ready(fn(*args))
    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    single = max(time.perf_counter() - start, 1e-7)
    inner = max(1, min(100, int(5e-3 / single)))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = None
        for _ in range(inner):
            out = fn(*args)
        jax.block_until_ready(out)
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


def relative_difference(actual: Any, expected: Any) -> float:
    """max |actual - expected| / max |expected|, computed in float32."""
    actual = jnp.asarray(actual, jnp.float32)
    expected = jnp.asarray(expected, jnp.float32)
    scale = jnp.maximum(jnp.max(jnp.abs(expected)), jnp.finfo(jnp.float32).tiny)
    return float(jnp.max(jnp.abs(actual - expected)) / scale)


def run_case(
    case: BenchCase, *, warmup: int, repeats: int, seed: int = 0
) -> BenchResult:
    args = case.make_inputs(jax.random.key(seed))
    args = jax.block_until_ready(args)
    xla = jax.jit(case.xla_fn)
    kernel = jax.jit(case.kernel_fn)
    difference = relative_difference(kernel(*args), xla(*args))
    xla_seconds = median_seconds(xla, args, warmup, repeats)
    kernel_seconds = median_seconds(kernel, args, warmup, repeats)
    peak = peak_tflops(device_kind(), case.dtype)
    kernel_tflops = case.flops / kernel_seconds / 1e12
    return BenchResult(
        name=case.name,
        shape=case.shape,
        dtype=case.dtype,
        flops=case.flops,
        xla_seconds=xla_seconds,
        kernel_seconds=kernel_seconds,
        kernel_tflops=kernel_tflops,
        xla_tflops=case.flops / xla_seconds / 1e12,
        ratio_xla_over_kernel=xla_seconds / kernel_seconds,
        peak_tflops=peak,
        kernel_fraction_of_peak=None if peak is None else kernel_tflops / peak,
        details={**case.details, "max_relative_difference_to_xla": difference},
    )


def format_table(results: Sequence[BenchResult]) -> str:
    header = (f"{'shape':<28} {'dtype':<9} {'XLA ms':>9} {'kernel ms':>10} "
              f"{'XLA/kernel':>10} {'TFLOP/s':>9} {'of peak':>8}")
    lines = [header, "-" * len(header)]
    for r in results:
        fraction = ("n/a" if r.kernel_fraction_of_peak is None
                    else f"{100 * r.kernel_fraction_of_peak:.1f}%")
        lines.append(
            f"{r.shape:<28} {r.dtype:<9} {1e3 * r.xla_seconds:>9.3f} "
            f"{1e3 * r.kernel_seconds:>10.3f} {r.ratio_xla_over_kernel:>10.2f} "
            f"{r.kernel_tflops:>9.2f} {fraction:>8}"
        )
    return "\n".join(lines)


def device_slug(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "unknown"


def default_json_path(suite: str, today: datetime.date | None = None) -> Path:
    today = today or datetime.date.today()
    name = f"{suite}-{device_slug(device_kind())}-{today.isoformat()}.json"
    return Path("benchmarks") / "results" / name


def write_json(
    path: Path,
    suite: str,
    results: Sequence[BenchResult],
    options: SuiteOptions,
    warmup: int,
    repeats: int,
) -> None:
    document = {
        "format_version": RESULT_FORMAT_VERSION,
        "suite": suite,
        "device_kind": device_kind(),
        "backend": jax.default_backend(),
        "jax_version": jax.__version__,
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(),
        "interpret": options.interpret,
        "small": options.small,
        "warmup": warmup,
        "repeats": repeats,
        "results": [dataclasses.asdict(r) for r in results],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, default=str) + "\n")
