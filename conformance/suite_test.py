"""The conformance cases as pytest tests (collected with ``-p conformance.pytest_plugin``)."""

from conformance.pytest_plugin import check_case


def test_conformance(conformance_case, conformance_backend, conformance_profile):
    check_case(conformance_case, conformance_backend, conformance_profile)
