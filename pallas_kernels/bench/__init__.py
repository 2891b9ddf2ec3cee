"""Benchmarks of Pallas kernels against XLA (``python -m pallas_kernels.bench``).

Later ops add a module that builds ``BenchCase`` objects and calls
``register_suite(name, suite)``, then import it in ``cli.py``.
"""

from pallas_kernels.bench.harness import (
    BenchCase,
    BenchResult,
    SuiteOptions,
    register_suite,
    run_case,
)

__all__ = ["BenchCase", "BenchResult", "SuiteOptions", "register_suite", "run_case"]
