"""Runs the tests on two worker processes when pytest-xdist is installed (the ``test`` extra has it):
CI's machine has two cores. ``-n N`` chooses otherwise, ``-n 0`` runs them in this process."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest

#: Worker processes when the command line names none.
DEFAULT_WORKERS = 2


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: Any) -> None:
    if importlib.util.find_spec("xdist") is None or "PYTEST_XDIST_WORKER" in os.environ:
        return
    option = config.option
    if getattr(option, "numprocesses", None) is None and not getattr(option, "usepdb", False) \
            and not option.collectonly and config.pluginmanager.has_plugin("xdist"):
        option.numprocesses = DEFAULT_WORKERS
        if getattr(option, "dist", "no") == "no":
            option.dist = "loadfile"
