"""IREE's outcomes where the documents leave a choice, shown by minimal StableHLO programs run outside the project.

Run: ``python tools/iree_outcomes.py`` (needs ``iree.compiler`` and ``iree.runtime``; IREE 3.13 is in the venv).
Each line prints what IREE's llvm-cpu target gives, compiled for the host CPU and for the generic x86-64 CPU,
the evidence for the outcomes the specs name (specs/ops/convert_element_type.yaml, abs.yaml, digamma.yaml).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np


def run(source: str, *args: np.ndarray, cpu: str = "host") -> np.ndarray:
    import iree.compiler as compiler
    import iree.runtime as runtime

    flags = [f"--iree-llvmcpu-target-cpu={cpu}", "--iree-input-demote-f64-to-f32=false"]
    module = compiler.compile_str(source, target_backends=["llvm-cpu"], input_type="stablehlo", extra_args=flags)
    context = runtime.SystemContext(config=runtime.Config("local-task"))
    context.add_vm_module(runtime.VmModule.copy_buffer(context.instance, module))
    return np.asarray(context.modules.module["main"](*args).to_host())


def unary(op: str, src: str, dst: str, n: int, via_i8: bool = False) -> str:
    """``op`` from tensor<n x src> to tensor<n x dst>; ``via_i8``: the result bitcast to i8 (no numpy f8 mapping)."""
    out = "i8" if via_i8 else dst
    tail = (f"  %1 = stablehlo.bitcast_convert %0 : (tensor<{n}x{dst}>) -> tensor<{n}xi8>\n  return %1 : tensor<{n}xi8>"
            if via_i8 else f"  return %0 : tensor<{n}x{dst}>")
    return (f"func.func @main(%x: tensor<{n}x{src}>) -> tensor<{n}x{out}> {{\n"
            f"  %0 = stablehlo.{op} %x : (tensor<{n}x{src}>) -> tensor<{n}x{dst}>\n{tail} }}")


def digamma_near_zero(x: np.ndarray) -> list[float]:
    """IREE's Digamma of f32 ``x``, from the program jax lowers lax.digamma to (chlo.digamma)."""
    import re

    import jax
    from jax import lax

    text = re.sub(r"module @\S+", "module @module", jax.jit(lax.digamma).lower(x).as_text())
    return run(text.replace("func.func public @main", "func.func @main"), x).tolist()


def main() -> None:
    for cpu in ("host", "x86-64"):
        x = np.float32([1000, -1000, np.inf, -np.inf, np.nan, 300])
        print(f"[{cpu}] convert f32 {x.tolist()} -> s8:", run(unary("convert", "f32", "i8", 6), x, cpu=cpu).tolist())
        x = np.float32([-1.5, -2, 256, np.nan, 1e10])
        print(f"[{cpu}] convert f32 {x.tolist()} -> u8:", run(unary("convert", "f32", "ui8", 5), x, cpu=cpu).tolist())
        x = np.float32([1, 2.5, 3, 5, 6, 7, 1.5, 0.75, 0.5])
        bits = run(unary("convert", "f32", "f8E8M0FNU", 9, via_i8=True), x, cpu=cpu)
        print(f"[{cpu}] convert f32 {x.tolist()} -> f8e8m0fnu:",
              bits.view(ml_dtypes.float8_e8m0fnu).astype(np.float32).tolist())
        z = np.complex128([5e307 + 5e307j, 1e-300 + 1e-300j])
        print(f"[{cpu}] abs c128 {z.tolist()}:", run(unary("abs", "complex<f64>", "f64", 2), z, cpu=cpu).tolist())
        z = np.complex64([3e37 + 3e37j, 1e-30 + 1e-30j])
        print(f"[{cpu}] abs c64 {z.tolist()}:", run(unary("abs", "complex<f32>", "f32", 2), z, cpu=cpu).tolist())
    x = np.float32([0.0, -0.0, 1e-40, -1e-40])
    print(f"[host] digamma f32 {x.tolist()} (jax's chlo.digamma):", digamma_near_zero(x))
    product = (
        "func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.multiply %x, %y : tensor<2xf32>\n  return %0 : tensor<2xf32> }"
    )
    x = np.float32([1e-40, -1e-40])
    print(f"[host] {x.tolist()} * 1.0 (subnormals read as zero):", run(product, x, np.float32([1, 1])).tolist())


if __name__ == "__main__":
    main()

