"""``python -m pallas_kernels.bench reduce_window``: pooling vs XLA.

Cases: 3x3 stride-2 max pool on (N, 112, 112, 64), sum pools, global pooling
over (N, 7, 7, 2048), 5/9/13 stride-1 windows and the max-pool gradient
(select_and_scatter_add).  Pooling is memory-bound, so each case records the
bytes it must move (operand read once, result written once) and the device
copy bandwidth measured in the same run (``copy_bytes_per_second``); the
achieved fraction is ``bytes_moved / kernel_seconds / copy_bytes_per_second``.
"""

from __future__ import annotations

import functools
import math
import time

import jax
import jax.numpy as jnp

from pallas_kernels.bench.harness import BenchCase, SuiteOptions, register_suite
from pallas_kernels.pooling import reduce_window, select_and_scatter_add

SAME_POOL = ((1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
# (name, operand shape, computation, init, (window, strides, padding))
FULL_CASES = [
    *[(f"maxpool3x3s2_n{n}", (n, 112, 112, 64), "max", -jnp.inf, SAME_POOL)
      for n in (32, 128)],
    *[(f"sumpool{w}x{w}s{w}_n{n}", (n, 56, 56, 256), "add", 0.0,
       ((1, w, w, 1), (1, w, w, 1), "VALID")) for n in (32, 128) for w in (2,)],
    ("sumpool3x3s1_n32", (32, 56, 56, 256), "add", 0.0, ((1, 3, 3, 1), (1,) * 4, "SAME")),
    *[(f"globalpool_n{n}", (n, 7, 7, 2048), "add", 0.0, ((1, 7, 7, 1), (1,) * 4, "VALID"))
      for n in (32, 128)],
    *[(f"maxpool{w}x{w}s1", (32, 40, 40, 256), "max", -jnp.inf,
       ((1, w, w, 1), (1,) * 4, "SAME")) for w in (5, 9, 13)],
]
SMALL_CASES = [
    ("maxpool3x3s2_small", (2, 12, 12, 8), "max", -jnp.inf, SAME_POOL),
    ("globalpool_small", (2, 7, 7, 16), "add", 0.0, ((1, 7, 7, 1), (1,) * 4, "VALID")),
]
FULL_GRADIENTS = [(n, (n, 112, 112, 64)) for n in (32, 128)]
SMALL_GRADIENTS = [(2, (2, 12, 12, 8))]
DTYPES = (jnp.bfloat16, jnp.float32)
COPY_BYTES = 512 * 1024 * 1024


def measure_copy_bandwidth(small: bool) -> float:
    """Bytes per second of a plain device copy (read + write), measured now."""
    count = (1 << 16) if small else COPY_BYTES // 4
    x = jnp.ones((count,), jnp.float32)
    copy = jax.jit(lambda v: v + 1)
    jax.block_until_ready(copy(x))
    start, repeats = time.perf_counter(), 3 if small else 20
    for _ in range(repeats):
        out = copy(x)
    jax.block_until_ready(out)
    return 2 * 4 * count * repeats / (time.perf_counter() - start)


def _pool_case(name, shape, computation, init, args, dtype, copy_bw, interpret):
    out_shape = jax.eval_shape(
        lambda v: jax.lax.reduce_window(v, jnp.asarray(init, dtype), jax.lax.max, *args),
        jax.ShapeDtypeStruct(shape, dtype)).shape
    itemsize = jnp.dtype(dtype).itemsize
    moved = (math.prod(shape) + math.prod(out_shape)) * itemsize
    lax_fn = {"max": jax.lax.max, "add": jax.lax.add}[computation]

    def make_inputs(key):
        return (jax.random.normal(key, shape, dtype),)

    return BenchCase(
        name=f"{name}_{jnp.dtype(dtype).name}", shape="x".join(map(str, shape)),
        dtype=jnp.dtype(dtype).name,
        flops=float(math.prod(out_shape) * math.prod(args[0])),
        make_inputs=make_inputs,
        xla_fn=lambda x: jax.lax.reduce_window(x, jnp.asarray(init, dtype), lax_fn, *args),
        kernel_fn=lambda x: reduce_window(x, init, computation, *args),
        details={"bytes_moved": moved, "copy_bytes_per_second": copy_bw,
                 "op": "reduce_window", "computation": computation,
                 "window": str(args), "interpret": interpret},
    )


def _gradient_case(n, shape, dtype, copy_bw, interpret):
    window, strides, padding = SAME_POOL
    out_shape = (n, 56, 56, 64) if shape[1] == 112 else (n, 6, 6, shape[3])
    itemsize = jnp.dtype(dtype).itemsize
    moved = (2 * math.prod(shape) + math.prod(out_shape)) * itemsize

    def make_inputs(key):
        k1, k2 = jax.random.split(key)
        return (jax.random.normal(k1, out_shape, dtype), jax.random.normal(k2, shape, dtype))

    def xla_fn(source, operand):
        from jax._src.lax.windowed_reductions import _select_and_scatter_add
        return _select_and_scatter_add(source, operand, jax.lax.ge_p, window, strides,
                                       padding)

    return BenchCase(
        name=f"maxpool_grad_n{n}_{jnp.dtype(dtype).name}", shape="x".join(map(str, shape)),
        dtype=jnp.dtype(dtype).name, flops=float(math.prod(out_shape) * 9),
        make_inputs=make_inputs, xla_fn=xla_fn,
        kernel_fn=lambda s, o: select_and_scatter_add(s, o, "ge", window, strides, padding),
        details={"bytes_moved": moved, "copy_bytes_per_second": copy_bw,
                 "op": "select_and_scatter_add", "interpret": interpret},
    )


def reduce_window_suite(options: SuiteOptions) -> list[BenchCase]:
    copy_bw = measure_copy_bandwidth(options.small)
    pools = SMALL_CASES if options.small else FULL_CASES
    grads = SMALL_GRADIENTS if options.small else FULL_GRADIENTS
    make = functools.partial(_pool_case, copy_bw=copy_bw, interpret=options.interpret)
    cases = [make(*case, dtype) for case in pools for dtype in DTYPES]
    cases += [_gradient_case(n, shape, dtype, copy_bw, options.interpret)
              for n, shape in grads for dtype in DTYPES]
    return cases


def bandwidth_table(results) -> str:
    """Achieved bandwidth of XLA and the kernel, as fractions of the copy bandwidth."""
    header = (f"{'case':<34} {'XLA ms':>9} {'kernel ms':>10} {'XLA GB/s':>9} "
              f"{'kern GB/s':>10} {'XLA/copy':>9} {'kern/copy':>10}")
    lines = [header, "-" * len(header)]
    for r in results:
        moved, copy_bw = r.details["bytes_moved"], r.details["copy_bytes_per_second"]
        xla_bw, kernel_bw = moved / r.xla_seconds, moved / r.kernel_seconds
        lines.append(
            f"{r.name:<34} {1e3 * r.xla_seconds:>9.3f} {1e3 * r.kernel_seconds:>10.3f} "
            f"{xla_bw / 1e9:>9.1f} {kernel_bw / 1e9:>10.1f} {xla_bw / copy_bw:>9.1%} "
            f"{kernel_bw / copy_bw:>10.1%}")
    return "\n".join(lines)


register_suite("reduce_window", reduce_window_suite, extra_table=bandwidth_table)
