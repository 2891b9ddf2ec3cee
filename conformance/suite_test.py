"""The conformance cases as pytest tests (collected with ``-p conformance.pytest_plugin``)."""

from conformance.pytest_plugin import check_result


def test_conformance(conformance_case, conformance_run):
    check_result(conformance_run(conformance_case))
