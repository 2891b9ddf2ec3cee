"""``python -m conformance.programs``: lower every program of :mod:`conformance.programs.sources` to StableHLO and
save its inputs, next to this file."""

from __future__ import annotations

import sys

import jax
import numpy as np

from conformance.programs import paths
from conformance.programs.sources import PROGRAMS, SHARDED_DEVICES


def main() -> int:
    jax.config.update("jax_num_cpu_devices", SHARDED_DEVICES)  # before jax's backends start: the sharded program
    for name, (fn, inputs, doc) in PROGRAMS.items():
        args = inputs()
        mlir, npz = paths(name)
        mlir.write_text(f"// {name}: {doc} (conformance/programs/sources.py, jax {jax.__version__})\n"
                        + jax.jit(fn).lower(*args).as_text())
        np.savez(npz, **{f"arg{i}": a for i, a in enumerate(args)})
        print(f"wrote {mlir.name} and {npz.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
