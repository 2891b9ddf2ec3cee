"""A pytest plugin that runs the conformance suite as one pytest test per case.

    pytest -p conformance.pytest_plugin --pyargs conformance.suite_test \\
        --conformance-backend jax --conformance-ops Add,Pow [--conformance-profile xla]

Unsupported cases are skipped and implementation-defined differences are reported as xfail, each
with its reason; a failing case prints its reproduction. Cases run in a worker process (the
runner's own isolation, conformance/isolation.py): a case that crashes the backend, exits, or runs
past ``--conformance-timeout`` seconds fails alone and a new worker runs the next one.
``--conformance-no-isolation`` runs them in the pytest process instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import specs
from conformance.generate import cases_for
from conformance.isolation import DEFAULT_TIMEOUT, IsolatedRunner
from conformance.options import positive_seconds
from conformance.outcomes import PROFILES, SPEC
from conformance.runner import FAILURES, IMPL_DEFINED, UNSUPPORTED, Result, run_case


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("conformance")
    group.addoption("--conformance-backend", default="jax",
                    help="backend: reference, jax, pallas, an entry point, or module:attribute")
    group.addoption("--conformance-ops", default="", help="comma-separated op names (default: all)")
    group.addoption("--conformance-seed", type=int, default=0, help="seed for generated cases")
    group.addoption("--conformance-profile", choices=PROFILES, default=SPEC,
                    help="spec (default): allowed implementation-defined outcomes accepted; xla: XLA's behaviour "
                    "required everywhere")
    group.addoption("--conformance-timeout", type=positive_seconds, default=DEFAULT_TIMEOUT,
                    help=f"seconds one case may run before its worker is killed (default {DEFAULT_TIMEOUT:g})")
    group.addoption("--conformance-no-isolation", action="store_true",
                    help="run the cases in the pytest process (no crash or hang protection)")


def pytest_generate_tests(metafunc: Any) -> None:
    if "conformance_case" not in metafunc.fixturenames:
        return
    config = metafunc.config
    names = [n.strip() for n in config.getoption("conformance_ops").split(",") if n.strip()]
    all_specs = specs.load_all()
    cases = [c for name in (names or list(all_specs))
             for c in cases_for(all_specs[name], config.getoption("conformance_seed"))]
    metafunc.parametrize("conformance_case", cases, ids=[c.id for c in cases])


@pytest.fixture(scope="session")
def conformance_backend(request: Any) -> Any:
    from backend.backends import get_backend
    return get_backend(request.config.getoption("conformance_backend"))


@pytest.fixture(scope="session")
def conformance_run(request: Any) -> Iterator[Callable[[Any], Result]]:
    """Runs one case on the chosen backend, in a worker process unless --conformance-no-isolation."""
    config = request.config
    name = config.getoption("conformance_backend")
    profile = config.getoption("conformance_profile")
    if config.getoption("conformance_no_isolation"):
        backend = request.getfixturevalue("conformance_backend")
        yield lambda case: run_case(case, backend, profile)
        return
    with IsolatedRunner(name, jobs=1, timeout=config.getoption("conformance_timeout"), profile=profile) as runner:
        yield lambda case: runner.run([case])[0]


def pytest_report_header(config: Any) -> str:
    return f"conformance profile: {config.getoption('conformance_profile')}"


def check_result(result: Result) -> None:
    """Fail with the reproduction, skip if unsupported, xfail if implementation-defined."""
    if result.status == UNSUPPORTED:
        pytest.skip(result.message)
    if result.status == IMPL_DEFINED:
        pytest.xfail(result.message)
    if result.status in FAILURES:
        pytest.fail(f"{result.status}: {result.message}\n--- reproduction ---\n{result.reproduction}", pytrace=False)


def check_case(case: Any, backend: Any, profile: str = SPEC) -> None:
    """Run one case in this process and check its result."""
    check_result(run_case(case, backend, profile))
