"""jax lowerings of the random-number ops: XLA's own instructions.

``lax.rng_bit_generator`` takes only a u64[2] (or u32[4]) key and unsigned results, and lax has no
normal-distribution rng; so RngBitGenerator and RngNormal are emitted directly as the StableHLO
instructions (``rng_bit_generator``, ``rng`` with NORMAL), and XLA's behaviour is what runs.
RngUniform is ``lax.rng_uniform`` (StableHLO ``rng`` with UNIFORM).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax import lax
from jax.extend.core import Primitive
from jax.interpreters import mlir
from jaxlib.mlir.dialects import stablehlo

from backend.hlo.attribute_types import RandomAlgorithm
from backend.jax_backend import LoweringContext, lowering

_ALGORITHM_NAMES = {RandomAlgorithm.RNG_DEFAULT: "DEFAULT", RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
                    RandomAlgorithm.RNG_PHILOX: "PHILOX"}

_RNG_BIT_GENERATOR = Primitive("xla_rng_bit_generator")
_RNG_BIT_GENERATOR.multiple_results = True
_RNG_BIT_GENERATOR.def_abstract_eval(
    lambda state, *, algorithm, dims, dtype: (jax.core.ShapedArray(state.shape, state.dtype),
                                              jax.core.ShapedArray(dims, dtype)))
_RNG_BIT_GENERATOR.def_impl(lambda state, **params: jax.jit(lambda s: _RNG_BIT_GENERATOR.bind(s, **params))(state))


def _rng_bit_generator_lowering(ctx: mlir.LoweringRuleContext, state: Any, *, algorithm: str, dims: tuple[int, ...],
                                dtype: np.dtype) -> list[Any]:
    state_type, bits_type = (mlir.aval_to_ir_type(ctx.module_context, a) for a in ctx.avals_out)
    op = stablehlo.RngBitGeneratorOp(state_type, bits_type, stablehlo.RngAlgorithmAttr.get(algorithm), state)
    return list(op.results)


mlir.register_lowering(_RNG_BIT_GENERATOR, _rng_bit_generator_lowering)

_RNG_NORMAL = Primitive("xla_rng_normal")
_RNG_NORMAL.def_abstract_eval(lambda mu, sigma, *, dims: jax.core.ShapedArray(dims, mu.dtype))
_RNG_NORMAL.def_impl(lambda mu, sigma, **params: jax.jit(lambda m, s: _RNG_NORMAL.bind(m, s, **params))(mu, sigma))


def _rng_normal_lowering(ctx: mlir.LoweringRuleContext, mu: Any, sigma: Any, *, dims: tuple[int, ...]) -> list[Any]:
    shape = mlir.ir_constant(np.array(dims, np.int64))
    return [stablehlo.rng(mu, sigma, shape, stablehlo.RngDistributionAttr.get("NORMAL"))]


mlir.register_lowering(_RNG_NORMAL, _rng_normal_lowering)


@lowering("RngBitGenerator")
def rng_bit_generator(ctx: LoweringContext, initial_state: Any) -> Any:
    out = ctx.shape.tuple_shapes()[1]
    return tuple(_RNG_BIT_GENERATOR.bind(initial_state, algorithm=_ALGORITHM_NAMES[ctx.attr("algorithm")],
                                         dims=tuple(out.dimensions()), dtype=out.numpy_dtype()))


@lowering("RngUniform")
def rng_uniform(ctx: LoweringContext, a: Any, b: Any) -> Any:
    return lax.rng_uniform(a, b, tuple(ctx.shape.dimensions()))


@lowering("RngNormal")
def rng_normal(ctx: LoweringContext, mu: Any, sigma: Any) -> Any:
    return _RNG_NORMAL.bind(mu, sigma, dims=tuple(ctx.shape.dimensions()))
