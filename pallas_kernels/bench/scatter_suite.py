"""``python -m pallas_kernels.bench scatter``: lax.scatter_add vs the Pallas kernel."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from pallas_kernels.bench.harness import BenchCase, SuiteOptions, register_suite
from pallas_kernels.scatter_kernel import scatter

ROWS = jax.lax.ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
SCALARS = jax.lax.ScatterDimensionNumbers(
    update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))


@dataclasses.dataclass(frozen=True)
class ScatterShape:
    name: str
    rows: int  # operand rows (V)
    width: int  # operand row width (D); 0 means a 1-D operand of scalars
    updates: int  # N
    distribution: str  # "uniform", "zipf" or "identical"
    dtype: str


def _embedding_cases() -> list[ScatterShape]:
    return [ScatterShape(f"embedding_grad_{v // 1024}k_x{d}_{n // 1024}k_{dist}", v, d, n,
                         dist, "bfloat16")
            for v in (32768, 262144) for d in (768, 4096) for n in (8192, 65536)
            for dist in ("uniform", "zipf")]


FULL_SHAPES = [
    *_embedding_cases(),
    ScatterShape("contention_399x128_40960", 399, 128, 40960, "uniform", "float32"),
    ScatterShape("segment_sum_12123x1024", 12123, 1024, 65536, "uniform", "float32"),
    ScatterShape("single_element_65536", 1, 0, 65536, "identical", "float32"),
]
SMALL_SHAPES = [
    ScatterShape("embedding_small_zipf", 256, 128, 512, "zipf", "bfloat16"),
    ScatterShape("contention_small", 39, 128, 1024, "uniform", "float32"),
    ScatterShape("single_element_small", 1, 0, 256, "identical", "float32"),
]


def _draw_indices(key: jax.Array, shape: ScatterShape) -> jax.Array:
    if shape.distribution == "identical":
        return jnp.zeros((shape.updates, 1), jnp.int32)
    if shape.distribution == "zipf":  # rank ~ 1 / r^1.1, on the host (seeded)
        rng = np.random.default_rng(int(jax.random.randint(key, (), 0, 2**30)))
        ranks = np.minimum(rng.zipf(1.1, size=shape.updates) - 1, shape.rows - 1)
        return jnp.asarray(ranks[:, None], jnp.int32)
    return jax.random.randint(key, (shape.updates, 1), 0, shape.rows, jnp.int32)


def _case(shape: ScatterShape, interpret: bool) -> BenchCase:
    dtype = jnp.dtype(shape.dtype)
    operand_shape = (shape.rows, shape.width) if shape.width else (shape.rows,)
    update_shape = (shape.updates, shape.width) if shape.width else (shape.updates,)
    numbers = ROWS if shape.width else SCALARS

    def make_inputs(key):
        keys = jax.random.split(key, 3)
        return (jax.random.normal(keys[0], operand_shape, dtype), _draw_indices(keys[1], shape),
                jax.random.normal(keys[2], update_shape, dtype))

    def xla_fn(operand, indices, updates):
        return jax.lax.scatter_add(operand, indices, updates, numbers)

    def kernel_fn(operand, indices, updates):
        return scatter(operand, indices, updates, numbers, combiner="add")

    width = max(shape.width, 1)
    return BenchCase(
        name=shape.name,
        shape=f"{shape.name}",
        dtype=dtype.name,
        flops=float(shape.updates * width),  # one add per update element
        make_inputs=make_inputs,
        xla_fn=xla_fn,
        kernel_fn=kernel_fn,
        details={"rows": shape.rows, "width": width, "updates": shape.updates,
                 "distribution": shape.distribution, "combiner": "add",
                 "interpret": interpret},
    )


def scatter_suite(options: SuiteOptions) -> list[BenchCase]:
    shapes = SMALL_SHAPES if options.small else FULL_SHAPES
    return [_case(shape, options.interpret) for shape in shapes]


register_suite("scatter", scatter_suite)
