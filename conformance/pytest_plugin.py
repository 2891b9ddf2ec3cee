"""A pytest plugin that runs the conformance suite as one pytest test per case.

    pytest -p conformance.pytest_plugin --pyargs conformance.suite_test \\
        --conformance-backend jax --conformance-ops Add,Pow [--conformance-profile xla] \\
        [--conformance-xfails conformance/known_failures/jax.txt] [--conformance-skips FILE]

Unsupported cases are skipped and implementation-defined differences are reported as xfail, each
with its reason; a failing case prints its reproduction. Cases run in a worker process (the
runner's own isolation, conformance/isolation.py): a case that crashes the backend, exits, or runs
past ``--conformance-timeout`` seconds fails alone and a new worker runs the next one.
``--conformance-no-isolation`` runs them in the pytest process instead. The run command's manifests
(conformance/manifest.py) apply: a case ``--conformance-xfails`` lists is xfail when it fails (and XPASS, not a failure, as in
the run command, when it passes); one ``--conformance-skips`` lists is skipped with the entry's reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import specs
from conformance.generate import cases_for
from conformance.isolation import DEFAULT_TIMEOUT, IsolatedRunner
from conformance.manifest import Manifest, ManifestError
from conformance.outcomes import PROFILES, SPEC
from conformance.runner import FAILURES, IMPL_DEFINED, UNSUPPORTED, Result, run_case
from conformance.selection import positive_seconds


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
    group.addoption("--conformance-xfails", metavar="FILE",
                    help="cases expected to fail ('PATTERN REASON' lines, as run --xfails): xfail, or XPASS "
                    "(not a failure) when one passes")
    group.addoption("--conformance-skips", metavar="FILE", help="cases not to run, same format: skipped")


_MANIFESTS = pytest.StashKey[tuple[Manifest | None, Manifest | None]]()


def pytest_configure(config: Any) -> None:
    """Read the manifests up front: a malformed one is a usage error, before any test is collected."""
    config.stash[_MANIFESTS] = (_manifest(config, "conformance_xfails"), _manifest(config, "conformance_skips"))


def pytest_generate_tests(metafunc: Any) -> None:
    if "conformance_case" not in metafunc.fixturenames:
        return
    config = metafunc.config
    names = [n.strip() for n in config.getoption("conformance_ops").split(",") if n.strip()]
    all_specs = specs.load_all()
    cases = [c for name in (names or list(all_specs))
             for c in cases_for(all_specs[name], config.getoption("conformance_seed"))]
    xfails, skips = config.stash[_MANIFESTS]
    params = []
    for case in cases:
        marks = []
        skip = skips.match(case.id) if skips else None
        xfail = xfails.match(case.id) if xfails else None
        if skip:
            marks.append(pytest.mark.skip(reason=f"{skips.path}:{skip.line}: {skip.reason}"))
        elif xfail:
            marks.append(pytest.mark.xfail(reason=f"{xfails.path}:{xfail.line}: {xfail.reason}", strict=False))
        params.append(pytest.param(case, marks=marks, id=case.id))
    metafunc.parametrize("conformance_case", params)


def _manifest(config: Any, option: str) -> Manifest | None:
    path = config.getoption(option)
    if not path:
        return None
    try:
        return Manifest.read(path)
    except (OSError, ManifestError) as e:
        raise pytest.UsageError(f"--{option.replace('_', '-')}: {e}") from None


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
        yield lambda case: run_case(case, backend, profile, name)
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
