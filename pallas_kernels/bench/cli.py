"""Command line: ``python -m pallas_kernels.bench <suite> [options]``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import jax

from pallas_kernels.bench import (  # noqa: F401  (registers suites)
    conv_suite,
    dot_suite,
    reduce_window_suite,
    scatter_suite,
)
from pallas_kernels.bench.harness import (
    SuiteOptions,
    default_json_path,
    format_table,
    get_extra_table,
    get_suite,
    has_accelerator,
    run_case,
    suite_names,
    write_json,
)

NO_ACCELERATOR_MESSAGE = (
    "No GPU or TPU found (JAX backend: {backend}); nothing to benchmark.\n"
    "Run this on a machine with an accelerator, or use --interpret --small to "
    "exercise the harness on CPU with tiny shapes (timings are meaningless)."
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m pallas_kernels.bench",
        description="Time Pallas kernels against the XLA ops they replace.",
    )
    parser.add_argument("suite", choices=suite_names(), help="which op to benchmark")
    parser.add_argument("--json", type=Path, default=None,
                        help="where to write results (default "
                             "benchmarks/results/<suite>-<device>-<date>.json)")
    parser.add_argument("--interpret", action="store_true",
                        help="allow running on CPU (kernels in interpret mode)")
    parser.add_argument("--small", action="store_true", help="tiny shapes only")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--filter", default="",
                        help="only cases whose name contains this text")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not has_accelerator() and not args.interpret:
        print(NO_ACCELERATOR_MESSAGE.format(backend=jax.default_backend()))
        return 0
    options = SuiteOptions(small=args.small, interpret=args.interpret)
    cases = [c for c in get_suite(args.suite)(options) if args.filter in c.name]
    print(f"{args.suite}: {len(cases)} cases on {jax.devices()[0].device_kind} "
          f"(backend {jax.default_backend()})", flush=True)
    results = []
    for case in cases:
        results.append(run_case(case, warmup=args.warmup, repeats=args.repeats))
        print(format_table(results[-1:]).splitlines()[-1], flush=True)
    print()
    print(format_table(results))
    extra = get_extra_table(args.suite)
    if extra is not None and results:
        print()
        print(extra(results))
    path = args.json or default_json_path(args.suite)
    write_json(path, args.suite, results, options, args.warmup, args.repeats)
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
