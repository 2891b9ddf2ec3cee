"""The conformance suite: cases generated from the specs, runnable against any backend.

The suite knows a backend only through ``backend.backends.get_backend(name)`` (name, supports,
execute). ``python -m conformance run --backend jax`` runs it from the shell.
"""

from conformance.cases import Case
from conformance.generate import cases_for
from conformance.runner import Result, run_case, run_cases

__all__ = ["Case", "Result", "cases_for", "run_case", "run_cases"]
