"""README.md works as pasted: every ```python block runs (in order, in a fresh interpreter each, one working
directory for all, so the TPU recipe loads the artifact the block before it wrote; the multi-host script runs in
tests/test_multihost.py, on two processes), every shell block calls the
virtual environment's python or pip, and the install lines name what a checkout can install."""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
#: A block after this marker needs several processes: tests/test_multihost.py runs it.
MULTI_HOST = "<!-- readme-example: multi-host"
PYTHON_BLOCKS = [block for marker, block in re.findall(r"^(<!--[^\n]*-->\n)?```python\n(.*?)^```", README, re.S | re.M)
                 if not marker.startswith(MULTI_HOST)]
SHELL_BLOCKS = re.findall(r"^```(?:bash|sh|shell|console)\n(.*?)^```", README, re.S | re.M)


def test_the_readme_has_its_blocks():
    assert len(PYTHON_BLOCKS) >= 9 and len(SHELL_BLOCKS) >= 3


def test_every_python_block_runs_as_pasted(tmp_path):
    env = {**os.environ, "PYTHONPATH": ROOT, "HOME": str(tmp_path)}  # the checkout's code, an empty HOME
    failures = []
    for number, block in enumerate(PYTHON_BLOCKS, 1):
        proc = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        if proc.returncode != 0:
            failures.append(f"block {number}:\n{block}\n{proc.stderr[-1500:]}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[f"shell-{i + 1}" for i in range(len(SHELL_BLOCKS))])
def test_shell_blocks_call_the_virtual_environment(block):
    heredoc = None  # the terminator of the here-document being read (its lines are not commands)
    for line in block.splitlines():
        if heredoc is not None:
            heredoc = None if line.strip() == heredoc else heredoc
            continue
        command = line.split("#", 1)[0].strip()
        if not command:
            continue
        opened = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", command)
        heredoc = opened.group(1) if opened else None
        for step in re.split(r"\s*&&\s*", command):
            word = step.split()[0]
            assert word in ("python3",) or word.startswith(".venv/bin/"), f"bare {word!r} in: {line}"
            assert not (word == "python3" and " -m venv " not in f" {step} "), f"python3 only makes the venv: {line}"


def test_install_lines_name_what_a_checkout_installs():
    assert "xla-semantics[" not in README  # no registry has the package: pip install -e '.[extra]' from the checkout
    assert ".venv/bin/pip install -e '.[iree]'" in README
    assert "about 200 s the first time" not in README
