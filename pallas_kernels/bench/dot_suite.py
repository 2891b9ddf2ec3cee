"""``python -m pallas_kernels.bench dot``: lax.dot_general vs the Pallas kernel."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from pallas_kernels.bench.harness import BenchCase, SuiteOptions, register_suite
from pallas_kernels.dot import dot_general

MATMUL = (((1,), (0,)), ((), ()))
BATCHED_MATMUL = (((2,), (1,)), ((0,), (0,)))

# (batch, m, k, n); batch 0 means an unbatched [M, K] x [K, N] matmul.
FULL_SHAPES: list[tuple[int, int, int, int]] = [
    *[(0, s, s, s) for s in (1024, 2048, 4096, 8192)],
    *[(0, m, k, n) for m in (2048, 8192)
      for k, n in ((4096, 4096), (4096, 14336), (14336, 4096))],
    *[(0, m, 4096, 4096) for m in (16, 128)],
    (8, 2048, 2048, 2048),
]
SMALL_SHAPES: list[tuple[int, int, int, int]] = [
    (0, 64, 64, 64), (0, 16, 128, 96), (2, 32, 48, 64),
]
DTYPES = (jnp.bfloat16, jnp.float32)


def _case(batch: int, m: int, k: int, n: int, dtype, interpret: bool) -> BenchCase:
    lhs_shape = (m, k) if batch == 0 else (batch, m, k)
    rhs_shape = (k, n) if batch == 0 else (batch, k, n)
    numbers = MATMUL if batch == 0 else BATCHED_MATMUL

    def make_inputs(key):
        lhs_key, rhs_key = jax.random.split(key)
        return (jax.random.normal(lhs_key, lhs_shape, dtype),
                jax.random.normal(rhs_key, rhs_shape, dtype))

    def xla_fn(lhs, rhs):
        return jax.lax.dot_general(lhs, rhs, numbers, precision=None)

    def kernel_fn(lhs, rhs):
        return dot_general(lhs, rhs, numbers, precision=None)

    shape = f"{m}x{k}x{n}" if batch == 0 else f"{batch}x{m}x{k}x{n}"
    return BenchCase(
        name=f"dot_{shape}_{jnp.dtype(dtype).name}",
        shape=shape,
        dtype=jnp.dtype(dtype).name,
        flops=2.0 * max(batch, 1) * m * k * n,
        make_inputs=make_inputs,
        xla_fn=xla_fn,
        kernel_fn=kernel_fn,
        details={"batch": max(batch, 1), "m": m, "k": k, "n": n,
                 "dimension_numbers": str(numbers), "precision": "DEFAULT",
                 "interpret": interpret},
    )


def dot_suite(options: SuiteOptions) -> list[BenchCase]:
    shapes = SMALL_SHAPES if options.small else FULL_SHAPES
    make = functools.partial(_case, interpret=options.interpret)
    return [make(*shape, dtype) for shape in shapes for dtype in DTYPES]


register_suite("dot", dot_suite)
