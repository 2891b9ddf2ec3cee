"""The jax backend on several hosts, as the README's multi-host script runs it: two processes on this machine join
one jax cluster with ``jax.distributed.initialize`` (4 CPU devices each, gloo collectives) and run AllReduce,
AllGather and CollectivePermute over the 8 global devices through ``get_backend("jax").execute``. The script is
taken from README.md as written (tests/test_readme.py skips it: it needs two processes)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.test_readme import MULTI_HOST, README

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _readme_script() -> str:
    return README.split(MULTI_HOST, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def _run_cluster(code: str, cwd: Path, timeout: float = 240) -> list[str]:
    """Each process's output (two processes of the script ``code``, its arguments: process id, coordinator)."""
    coordinator = f"localhost:{_free_port()}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    env.pop("XLA_FLAGS", None)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i), coordinator], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
    outputs = []
    try:
        for i, p in enumerate(procs):
            out, err = p.communicate(timeout=timeout)
            assert p.returncode == 0, f"process {i} exited {p.returncode}:\n{err[-3000:]}"
            outputs.append(out)
    finally:
        for p in procs:  # one that failed leaves the other waiting at the coordinator
            if p.poll() is None:
                p.kill()
                p.wait()
    return outputs


def test_the_readme_multi_host_script_runs_collectives_over_eight_devices_of_two_processes(tmp_path: Path) -> None:
    outputs = _run_cluster(_readme_script(), tmp_path)
    # device d holds [d, 10 d]; every process reads back every device's result
    all_reduce = [[28, 280]] * 8  # 0 + 1 + ... + 7 = 28
    all_gather = [[x for k in range(8) for x in (k, 10 * k)]] * 8
    permuted = [[(d - 1) % 8, 10 * ((d - 1) % 8)] for d in range(8)]  # the ring d -> d + 1 (3 -> 4, 7 -> 0 cross)
    assert len(outputs) == 2
    for out in outputs:
        lines = re.sub(r"\[Gloo\][^\n]*\n", "", out).splitlines()  # gloo's connection messages, anywhere
        assert lines == [f"AllReduce {all_reduce}", f"AllGather {all_gather}",
                                    f"CollectivePermute {permuted}"], out
