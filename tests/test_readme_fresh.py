"""The README's blocks as a newcomer pastes them, each in a fresh environment (slow: an hour or more on two cores,
most of it the quick start's two commands, which run the whole conformance suite and the whole test suite; run
with ``python -m pytest -m slow -s tests/test_readme_fresh.py``, which prints each command's time).

A copy of the checkout (its tracked and unignored files, committed in a new repository) in a temporary folder, an empty HOME and a bare PATH
holding only ``python3``: the quick start's commands run line by line as the README writes them (the virtual
environment made there, its packages from the configured registries: ``pip config list``), then the Cloud TPU
recipe (the export block in that environment; the loading block in a second virtual environment holding only
what the block's first line installs), then the IREE extra's install line and a run on it, where its wheels can
be had. ``tests/test_readme.py`` runs the Python blocks in this interpreter's environment."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SHELL_BLOCKS = re.findall(r"^```bash\n(.*?)^```", README, re.S | re.M)
PYTHON_BLOCKS = re.findall(r"^```python\n(.*?)^```", README, re.S | re.M)
#: The machine's configuration of pip and TLS (its registries, certificates, proxies): a newcomer's shell has it.
_KEPT = re.compile(r"^(PIP_\w+|\w*_CA_\w*|SSL_\w+|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|(?i:https?_proxy|no_proxy))$")

pytestmark = pytest.mark.slow


def _block(first_line: str, blocks: list[str]) -> str:
    found = [b for b in blocks if b.startswith(first_line)]
    assert len(found) == 1, f"the README has no block (or several) starting {first_line!r}"
    return found[0]


def commands(block: str) -> list[str]:
    """The command lines of a shell block, comments and blank lines left out."""
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


class Newcomer:
    """A copy of the checkout and a shell with an empty HOME and only python3 on PATH."""

    def __init__(self, base: Path) -> None:
        self.checkout = base / "xla-semantics"
        self.home = base / "home"
        bin_dir = base / "bin"
        for folder in (self.home, bin_dir):
            folder.mkdir()
        (bin_dir / "python3").symlink_to(os.path.realpath(sys._base_executable))
        listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                                capture_output=True).stdout.decode().split("\0")
        for name in filter(None, listed):
            source = ROOT / name
            if source.is_file():
                (self.checkout / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, self.checkout / name)
        # a clone, as a newcomer's is (the reports name the suite's commit): the copy committed in a repository
        for git in (["init", "-q"], ["add", "-A"], ["-c", "user.name=newcomer", "-c", "user.email=newcomer@localhost",
                                                    "commit", "-q", "-m", "the checkout"]):
            subprocess.run(["git", *git], cwd=self.checkout, check=True, capture_output=True)
        self.env = {k: v for k, v in os.environ.items() if _KEPT.match(k)}
        self.env |= {"HOME": str(self.home), "PATH": f"{bin_dir}:/usr/bin:/bin", "LANG": "C.UTF-8"}
        self.log: list[tuple[str, float, int | str]] = []

    def run(self, command: str, timeout: float = 3 * 3600) -> subprocess.CompletedProcess[str]:
        start = time.perf_counter()
        try:
            done = subprocess.run(["/bin/bash", "-c", command], cwd=self.checkout, env=self.env, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.log.append((command, time.perf_counter() - start, "timed out"))
            raise
        self.log.append((command, time.perf_counter() - start, done.returncode))
        return done


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory: pytest.TempPathFactory):
    person = Newcomer(tmp_path_factory.mktemp("fresh"))
    yield person
    print("\n".join(f"{seconds:7.1f} s  exit {code}  {command}" for command, seconds, code in person.log))


def test_quick_start_runs_as_pasted(newcomer: Newcomer):
    quick_start = commands(SHELL_BLOCKS[0])
    assert len(quick_start) == 2 and all(line.startswith("python3 -m venv .venv && ") for line in quick_start)
    suite = newcomer.run(quick_start[0])
    assert suite.returncode == 0, suite.stdout[-3000:] + suite.stderr[-3000:]
    assert re.search(r"cases: \d+ passed, 0 failed, 0 crashed", suite.stdout), suite.stdout[-2000:]
    tests = newcomer.run(quick_start[1])
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert re.search(r"\d+ passed", tests.stdout) and " failed" not in tests.stdout, tests.stdout[-2000:]


def test_tpu_recipe_with_only_what_the_readme_installs(newcomer: Newcomer):
    """The export block in the quick start's environment, the loading block in one holding only what the block's
    first line installs (``pip install 'jax[tpu]' flatbuffers``: jax's deserializer needs flatbuffers)."""
    if not (newcomer.checkout / ".venv" / "bin" / "python").exists():
        pytest.skip("the quick start's environment was not made (its test failed)")
    export = _block("# export_bias_relu.py", PYTHON_BLOCKS)
    load = _block("# run_bias_relu.py", PYTHON_BLOCKS)
    (newcomer.checkout / "export_bias_relu.py").write_text(export)
    (newcomer.checkout / "run_bias_relu.py").write_text(load)
    exported = newcomer.run(".venv/bin/python export_bias_relu.py")
    assert exported.returncode == 0, exported.stderr[-3000:]
    assert (newcomer.checkout / "bias_relu.jaxexport").stat().st_size > 0
    install = re.search(r"pip install (.+)$", load.splitlines()[0])
    assert install, "the loading block's first line says what to install"
    host = newcomer.checkout.parent / "tpu-host"  # the TPU host: the artifact and the script, no checkout
    host.mkdir()
    for name in ("bias_relu.jaxexport", "run_bias_relu.py"):
        shutil.copy(newcomer.checkout / name, host / name)
    made = newcomer.run(f"python3 -m venv ../tpu-venv && ../tpu-venv/bin/pip install -q {install.group(1)}")
    assert made.returncode == 0, made.stderr[-3000:]
    alone = newcomer.run("cd ../tpu-host && ../tpu-venv/bin/python -c 'import backend'")
    assert "No module named 'backend'" in alone.stderr, "the TPU environment must not see the project"
    loaded = newcomer.run("cd ../tpu-host && ../tpu-venv/bin/python run_bias_relu.py")
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert "[[0.  1.  0. ]\n [2.5 0.  2. ]]" in loaded.stdout, loaded.stdout


def test_iree_extra_installs_and_runs_where_its_wheels_are(newcomer: Newcomer):
    line = ".venv/bin/pip install -e '.[iree]'"
    assert f"`{line}`" in README
    if not (newcomer.checkout / ".venv" / "bin" / "python").exists():
        pytest.skip("the quick start's environment was not made (its test failed)")
    installed = newcomer.run(f"{line} -q")
    if installed.returncode != 0 and "No matching distribution" in installed.stderr:
        pytest.skip(f"IREE's wheels are not available here: {installed.stderr.strip().splitlines()[-1]}")
    assert installed.returncode == 0, installed.stderr[-3000:]
    listed = newcomer.run(".venv/bin/python -m conformance list")
    backends = next(line for line in listed.stdout.splitlines() if line.startswith("backends:"))
    assert "iree" in backends and "not installed" not in backends, listed.stdout[:2000]
    report = newcomer.checkout / "iree-add-neg.json"
    ran = newcomer.run(f".venv/bin/python -m conformance run --backend iree --ops Add,Neg -q --report {report}")
    # IREE has real differences on these ops (the sub-byte classes of docs/iree_differences.md): the run ends, and
    # every case it fails is one the committed report fails too
    assert ran.returncode in (0, 1) and re.search(r"cases: \d+ passed, \d+ failed, 0 crashed", ran.stdout), \
        ran.stdout[-3000:] + ran.stderr[-2000:]
    committed = {c["id"]: c["status"] for c in json.loads((newcomer.checkout / "reports/iree/report.json").read_text())
                 ["cases"]}
    bad = {"failed", "crashed", "timed out"}
    new = [c["id"] for c in json.loads(report.read_text())["cases"] if c["status"] in bad]
    assert [i for i in new if committed.get(i) not in bad] == [], ran.stdout[-2000:]
