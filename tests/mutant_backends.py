"""Moved to :mod:`tests.support.mutant_backends`; this name stays only while tests/test_outcomes.py imports it.

Delete this file once tests/test_outcomes.py reads ``from tests.support.mutant_backends import MUTANTS``.
"""

from tests.support.mutant_backends import MUTANTS, Mutant

__all__ = ["MUTANTS", "Mutant"]
