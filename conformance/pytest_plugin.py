"""A pytest plugin that runs the conformance suite as one pytest test per case.

    pytest -p conformance.pytest_plugin --pyargs conformance.suite_test \\
        --conformance-backend jax --conformance-ops Add,Pow [--conformance-profile xla]

Unsupported cases are skipped and implementation-defined differences are reported as xfail, each
with its reason; a failing case prints its reproduction.
"""

from __future__ import annotations

from typing import Any

import pytest

import specs
from conformance.generate import cases_for
from conformance.outcomes import PROFILES, SPEC
from conformance.runner import FAILED, IMPL_DEFINED, UNSUPPORTED, run_case


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("conformance")
    group.addoption("--conformance-backend", default="jax",
                    help="backend: reference, jax, pallas, an entry point, or module:attribute")
    group.addoption("--conformance-ops", default="", help="comma-separated op names (default: all)")
    group.addoption("--conformance-seed", type=int, default=0, help="seed for generated cases")
    group.addoption("--conformance-profile", choices=PROFILES, default=SPEC,
                    help="spec (default): allowed implementation-defined outcomes accepted; xla: XLA's behaviour "
                    "required everywhere")


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
def conformance_profile(request: Any) -> str:
    return request.config.getoption("conformance_profile")


def pytest_report_header(config: Any) -> str:
    return f"conformance profile: {config.getoption('conformance_profile')}"


def check_case(case: Any, backend: Any, profile: str = SPEC) -> None:
    """Run one case; fail with its reproduction, skip if unsupported, xfail if implementation-defined."""
    result = run_case(case, backend, profile)
    if result.status == UNSUPPORTED:
        pytest.skip(result.message)
    if result.status == IMPL_DEFINED:
        pytest.xfail(result.message)
    if result.status == FAILED:
        pytest.fail(f"{result.message}\n--- reproduction ---\n{result.reproduction}", pytrace=False)
