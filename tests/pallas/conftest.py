"""pytest configuration for the Pallas kernel tests."""

import os
import sys

# Make tests/pallas/kernel_testing.py and the repository root importable
# regardless of the import mode or the directory pytest was started from.
_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (_HERE, os.path.dirname(os.path.dirname(_HERE))):
    if _path not in sys.path:
        sys.path.insert(0, _path)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: slower Pallas tests (deselect with -m 'not slow')")
