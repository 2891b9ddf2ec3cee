"""``python -m benchmarks.dispatch``: start-up and dispatch figures, side by side in one run.

Prints
- the cold start-up of ``import backend; ops.Add(...)`` in a fresh subprocess, with the parsed-spec
  cache off (every YAML file parsed) and with a current cache;
- the time of ``python -m conformance list`` (the CLI's start-up) likewise;
- the per-call time of ``get_backend("jax").execute`` against a direct ``jax.jit`` call of the
  same jax.lax function on the same NumPy arrays (result converted to NumPy in both), and their
  ratio, for a few small computations.

Times are the best of several interleaved rounds (the least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_STARTUP_CODE = ("from backend import XlaBuilder, ops, Shape, PrimitiveType\n"
                 "b = XlaBuilder('b')\n"
                 "p = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, [2]))\n"
                 "ops.Add(p, p)\n")


def _subprocess_seconds(argv: list[str], env: dict[str, str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def startup_figures(rounds: int = 3) -> list[tuple[str, float]]:
    """(label, seconds) for the builder's and the CLI's start-up, without and with the spec cache."""
    out = []
    with tempfile.TemporaryDirectory() as cache:
        for label, extra in (("no spec cache", {"XLA_SEMANTICS_NO_CACHE": "1"}),
                             ("current spec cache", {"XLA_SEMANTICS_CACHE_DIR": cache})):
            env = {**os.environ, **extra}
            if "XLA_SEMANTICS_CACHE_DIR" in extra:  # fill the cache first
                subprocess.run([sys.executable, "-c", _STARTUP_CODE], env=env, check=True)
            out.append((f"import backend; ops.Add(...)  [{label}]",
                        _subprocess_seconds([sys.executable, "-c", _STARTUP_CODE], env, rounds)))
            out.append((f"python -m conformance list    [{label}]",
                        _subprocess_seconds([sys.executable, "-m", "conformance", "list"], env, rounds)))
    return out


def _cases() -> list[tuple[str, Any, Callable[..., Any], list[np.ndarray]]]:
    """(name, computation, the same function in jax.lax, arguments)."""
    from jax import lax

    from backend import PrimitiveType, Shape, XlaBuilder, ops

    def params(b: XlaBuilder, *dims: Sequence[int]) -> list[Any]:
        return [ops.Parameter(b, i, Shape.array_shape(PrimitiveType.F32, d)) for i, d in enumerate(dims)]

    rng = np.random.default_rng(0)
    cases = []
    b = XlaBuilder("add")
    x, y = params(b, [4, 4], [4, 4])
    ops.Add(x, y)
    cases.append(("Add f32[4,4]", b.build(), lambda x, y: lax.add(x, y),
                  [rng.standard_normal((4, 4), np.float32) for _ in range(2)]))
    b = XlaBuilder("dot")
    x, y = params(b, [16, 16], [16, 16])
    ops.Dot(x, y)
    cases.append(("Dot f32[16,16]x[16,16]", b.build(), lambda x, y: lax.dot(x, y),
                  [rng.standard_normal((16, 16), np.float32) for _ in range(2)]))
    b = XlaBuilder("chain")
    x, y, z = params(b, [64], [64], [64])
    ops.Max(ops.Add(ops.Mul(x, y), z), x)
    cases.append(("Max(Mul+Add) f32[64], 3 args", b.build(), lambda x, y, z: lax.max(lax.add(lax.mul(x, y), z), x),
                  [rng.standard_normal(64, np.float32) for _ in range(3)]))
    return cases


def dispatch_figures(calls: int = 2000, rounds: int = 7) -> list[tuple[str, float, float]]:
    """(name, execute seconds per call, direct jit seconds per call) for each small computation."""
    import jax

    from backend import get_backend

    backend = get_backend("jax")
    out = []
    for name, computation, fn, args in _cases():
        direct = jax.jit(fn)

        def run_execute(computation: Any = computation, args: list[np.ndarray] = args) -> None:
            for _ in range(calls):
                backend.execute(computation, args)

        def run_direct(direct: Any = direct, args: list[np.ndarray] = args) -> None:
            for _ in range(calls):
                np.asarray(direct(*args))

        np.testing.assert_allclose(backend.execute(computation, args)[0], np.asarray(direct(*args)), rtol=1e-5)
        best = [float("inf"), float("inf")]
        for _ in range(rounds):  # interleaved, so that a busy moment hits both
            for i, run in enumerate((run_execute, run_direct)):
                start = time.perf_counter()
                run()
                best[i] = min(best[i], (time.perf_counter() - start) / calls)
        out.append((name, best[0], best[1]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dispatch", description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per timing round")
    parser.add_argument("--rounds", type=int, default=7, help="timing rounds (the best is kept)")
    parser.add_argument("--skip-startup", action="store_true", help="only the dispatch figures")
    args = parser.parse_args(argv)
    if not args.skip_startup:
        print("start-up (fresh subprocess, best of 3)")
        for label, seconds in startup_figures():
            print(f"  {label:<52} {seconds:6.3f} s")
    print(f"\ndispatch (per call, best of {args.rounds} rounds of {args.calls} calls)")
    print(f"  {'computation':<30} {'execute':>10} {'jax.jit':>10} {'ratio':>7}")
    for name, execute, direct in dispatch_figures(args.calls, args.rounds):
        print(f"  {name:<30} {execute * 1e6:8.1f}us {direct * 1e6:8.1f}us {execute / direct:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
